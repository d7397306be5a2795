module github.com/botd-project/botd

go 1.25.0

require (
	github.com/expr-lang/expr v1.17.8
	github.com/google/uuid v1.6.0
)
