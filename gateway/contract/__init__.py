"""The API contract, one concept a module; every public name is also here.

- ``schemas``: the three tools (``tools.json``), input validation, output checks;
- ``statuses``: the statuses a request moves through and the kinds of answer;
- ``notices``: what a status means, said to the agent on every read and push;
- ``references``: HFA-00042 and back;
- ``codec``: the JSON every body and answer goes through;
- ``storable``: what the gateway can store, refused from agents, escaped from mail.

Callers write ``contract.dumps``, ``contract.reference_for`` and so on: the
names below are the package's surface.
"""

from __future__ import annotations

from gateway.clock import iso
from gateway.contract.codec import MAX_JSON_DEPTH, Unrepresentable, dumps, loads
from gateway.contract.notices import (
    CONDITIONS_NOTICE,
    HELD_READING_NOTICE,
    LATE_REPLY_NOTICE,
    NOTICE_STATUS,
    status_notice,
    status_notice_of,
)
from gateway.contract.references import number_from_reference, reference_for
from gateway.contract.schemas import (
    ADD_TOOL,
    PARTY_FIELDS,
    REQUEST_TOOL,
    STATUS_TOOL,
    check_output,
    request_fields,
    tool,
    tools,
    validate_input,
)
from gateway.contract.statuses import (
    APPROVAL_KINDS,
    AWAITING_ANSWER,
    CONDITIONAL_APPROVAL,
    HUMAN_ANSWER_KINDS,
    STATUSES,
)
from gateway.contract.storable import (
    StorableObject,
    storable,
    storable_object,
    storable_value,
    value_problems,
)

__all__ = [
    "ADD_TOOL",
    "APPROVAL_KINDS",
    "AWAITING_ANSWER",
    "CONDITIONAL_APPROVAL",
    "CONDITIONS_NOTICE",
    "HELD_READING_NOTICE",
    "HUMAN_ANSWER_KINDS",
    "LATE_REPLY_NOTICE",
    "MAX_JSON_DEPTH",
    "NOTICE_STATUS",
    "PARTY_FIELDS",
    "REQUEST_TOOL",
    "STATUSES",
    "STATUS_TOOL",
    "StorableObject",
    "Unrepresentable",
    "check_output",
    "dumps",
    "iso",
    "loads",
    "number_from_reference",
    "reference_for",
    "request_fields",
    "status_notice",
    "status_notice_of",
    "storable",
    "storable_object",
    "storable_value",
    "tool",
    "tools",
    "validate_input",
    "value_problems",
]
