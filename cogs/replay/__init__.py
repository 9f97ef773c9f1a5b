"""``/nlk replay``: step through a finished hand privately, and show a step in the channel.

``ids`` names the step buttons' custom ids, ``step`` draws a step (its words, picture and
buttons), ``handler`` answers the command and the buttons; the buttons' ``DynamicItem``
family is in ``cogs/routes/replay.py``.
"""
