"""``/nlk learn``: the guided first hand, drawn in the learner's own private message."""
