module github.com/botd-project/botd/tools/peerbench

go 1.25.6

require (
	github.com/botd-project/botd v0.0.0
	github.com/joeycumines/go-behaviortree v1.11.0
	github.com/magicsea/behavior3go v0.0.4
)

require (
	github.com/agnivade/levenshtein v1.2.1 // indirect
	github.com/expr-lang/expr v1.17.8 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/joeycumines/go-bigbuff v1.21.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

replace github.com/botd-project/botd => ../..
