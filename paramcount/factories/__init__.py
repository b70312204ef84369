"""The user's own model code, named in their config: imported and run behind a fence.

``policy`` says whether factories may run and for how long each (options and environment
variables, nothing else: what only needs the policy stays light); ``factory`` builds the model a
config names and reads its parameters; ``fence`` runs it in a child process with that time
limit, its prints kept off stdout. This is the one package that executes code a user wrote.
May import: ``paramcount.engine``, ``paramcount.files``, ``paramcount.verify``.
"""
