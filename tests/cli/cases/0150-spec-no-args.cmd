spec
