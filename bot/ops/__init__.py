"""Running the bot as an operator sees it: command line, logs, metrics, health, processes."""
