"""HeadsUp's tools, one package: run them from the repository root as
modules (`python3 -m tools.training.train`), so each import names the file
it comes from and no tool edits sys.path."""
