"""The run: the protocol's loop over goals (runner), session files, loading simulators and systems, the context
(goals, database, templates, reader) and the library entry point (api).
"""
