"""What a run's sessions score: mwzeval's figures per session and run, the act figures, exports, and
the explanation of failures.
"""
