"""Our own input bounds hold whatever the YAML library's release: regression for pyyaml 6.0.4,
whose libyaml stops at a nesting limit of its own (1,000 levels, with its own wording) before the
project's 100-level bound had been applied."""

import pytest

from durak_spec.reference_impl.yamlio import MAX_DEPTH, InputError, parse_text

DEEP = {
    "flow, under libyaml's limit": "[" * 500 + "]" * 500,
    "flow, past libyaml's limit": "[" * 1500 + "]" * 1500,
    "flow, past the C recursion guard": "[" * 20_000 + "]" * 20_000,
    "block mappings": "".join("  " * i + "k:\n" for i in range(300)) + "  " * 300 + "k: 1\n",
    "compact sequences": "- " * 2000 + "x\n",
    "with an anchor (pure-Python loader)": "a: &x 1\nb: " + "[" * 1500 + "]" * 1500 + "\n",
}


@pytest.mark.parametrize("name", DEEP)
def test_nesting_past_our_bound_is_our_error_with_its_place(name):
    with pytest.raises(InputError) as info:
        parse_text(DEEP[name], "deep.yaml")
    assert f"nested more than {MAX_DEPTH} levels deep" in info.value.message
    assert info.value.message.startswith("line "), info.value.message


def test_nesting_at_our_bound_is_read():
    data = parse_text("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH, "ok.yaml")
    for _ in range(MAX_DEPTH - 1):
        data = data[0]
    assert data == [1]


def test_a_syntax_error_is_still_the_parsers_error_with_its_place():
    with pytest.raises(InputError) as info:
        parse_text("a: [1, 2\nb: 3\n", "bad.yaml")
    assert "nested" not in info.value.message and info.value.message.startswith("line ")
