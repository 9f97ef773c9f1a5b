"""``/nlk practice``: an unrated hand against AI seats, drawn in the player's own private
message, with a Hint button."""
