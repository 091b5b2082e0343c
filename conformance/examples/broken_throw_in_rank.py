"""Broken engine: any rank may be thrown in, whether or not it is on the table (throw_in.rank)."""

from durak_spec.conformance.examples.broken import BrokenEngine, main


class ThrowInAnyRank(BrokenEngine):
    breaks = "throw_in.rank"
    wrong = "throws in ranks that are not on the table"
    edit = ("rules/throw_in.yaml",
            "clause: \"card.rank in (table_ranks if opt.throw_in_match == 'rank_any_table_card' "
            "else attack_ranks)\"",
            'clause: "True"')


if __name__ == "__main__":
    main(ThrowInAnyRank)
