"""The simulated user: what it tracks of its goal (tracker), how it understands a system's words (reader,
linear), and the simulators that decide what to say next (agenda, llm, replay; base is their protocol).
"""
