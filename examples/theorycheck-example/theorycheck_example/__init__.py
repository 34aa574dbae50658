"""theorycheck-example: claims of one's own, shipped as a package (see README.md)."""
