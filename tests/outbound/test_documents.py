"""The documents of a request listed as documents: named, sized links, never a list's repr."""

from __future__ import annotations

from gateway import i18n
from gateway.outbound.documents import documents, human_size


def test_documents_are_named_sized_links_never_a_list_repr() -> None:
    fields = {
        "attachments": [
            {"name": "Kestrel-MSA.pdf", "size": 482133, "url": "https://files.example/k.pdf"},
            {"name": "evil.html", "size": 10, "url": "javascript:alert(1)"},
            "https://files.example/schedule-4.xlsx",
            {"filename": "notes.txt", "bytes": 3 * 1048576 // 2},
            42,
        ]
    }
    shown = documents(fields)
    assert shown[0] == {
        "name": "Kestrel-MSA.pdf",
        "size": "471\u00a0KB",
        "url": "https://files.example/k.pdf",
        "host": "files.example",
    }
    assert shown[1]["url"] == "" and shown[1]["name"] == "evil.html"
    assert shown[2]["name"] == "schedule-4.xlsx" and shown[2]["host"] == "files.example"
    assert shown[3]["size"] == "1.5\u00a0MB" and len(shown) == 4
    with i18n.speaking("de"):
        assert human_size(3 * 1048576 // 2) == "1,5\u00a0MB"
    assert documents({"attachments": "a.pdf"}) == [] and documents({}) == []
    many = documents({"attachments": [f"f{n}.pdf" for n in range(25)]})
    assert len(many) == 21 and many[-1]["name"] == "and 5 more"
