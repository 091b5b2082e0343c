"""Broken engine: no attack cap. limits.cap never refuses a card, so a seventh card is accepted."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class NoAttackCap(BrokenEngine):
    breaks = "limits.cap"
    wrong = "no attack cap"
    edit = ("rules/limits.yaml", 'clause: "not limits_apply or within_cap"', 'clause: "True"')


if __name__ == "__main__":
    main(NoAttackCap)
