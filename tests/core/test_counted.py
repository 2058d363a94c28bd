"""Counts in the screens' and messages' words: one noun, singular or plural, never "(s)"."""

from responder.core.counted import counted


def test_counted_takes_the_singular_for_one_and_the_plural_otherwise():
    assert counted(1, "answer") == "1 answer"
    assert counted(0, "answer") == "0 answers"
    assert counted(7, "answer") == "7 answers"
    assert counted(1, "class", "classes") == "1 class"
    assert counted(2, "class", "classes") == "2 classes"
