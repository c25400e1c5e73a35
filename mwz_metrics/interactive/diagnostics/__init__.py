"""Studies of the simulator itself, not of systems: its agreement with the test wizards' outcomes and
how real its turns are.
"""
