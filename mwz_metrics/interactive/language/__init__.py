"""Words for acts: templates taken from MultiWOZ 2.1 validation and the banks that say a user's or a
system's acts with them.
"""
