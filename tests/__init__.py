"""pyhalide's test suites, a package tree (see README.md)."""
