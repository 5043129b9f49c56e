"""The secret settings that are lists: reply-token keys, agent API keys, webhook secrets.

A refusal names the entry by its place, never by its text: the text is a secret.
"""

from __future__ import annotations

from gateway.errors import ConfigError


def parse_secret_keys(value: str, _setting: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in value.split(",") if k.strip())


def parse_api_keys(value: str, setting: str) -> tuple[tuple[str, str], ...]:
    """``name:key,name:key`` -> ((name, key), ...); the error never repeats a key."""
    keys: list[tuple[str, str]] = []
    for index, part in enumerate(p.strip() for p in value.split(",")):
        if not part:
            continue
        name, sep, key = part.partition(":")
        if not sep or not name.strip() or len(key.strip()) < 16:
            raise ConfigError(
                f"{setting}: entry {index + 1} must be NAME:KEY with a key of at least "
                "16 characters"
            )
        keys.append((name.strip(), key.strip()))
    return tuple(keys)


def parse_webhook_secrets(value: str, setting: str) -> tuple[str, ...]:
    secrets = tuple(s.strip() for s in value.split(",") if s.strip())
    for index, secret in enumerate(secrets):
        if not secret.startswith("whsec_") or len(secret) < 20:
            raise ConfigError(f"{setting}: secret {index + 1} must be in the whsec_<base64> form")
    return secrets
