module github.com/botd-project/botd

go 1.25.0

require (
	github.com/expr-lang/expr v1.17.8
	github.com/google/uuid v1.6.0
	go.yaml.in/yaml/v3 v3.0.6
	gobot.io/x/gobot/v2 v2.6.0
)

require (
	github.com/creack/goselect v0.1.3 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
	github.com/sigurn/crc8 v0.0.0-20220107193325-2243fe600f9f // indirect
	github.com/warthog618/go-gpiocdev v0.9.1 // indirect
	go.bug.st/serial v1.6.4 // indirect
	golang.org/x/sys v0.37.0 // indirect
	periph.io/x/conn/v3 v3.7.2 // indirect
	periph.io/x/host/v3 v3.8.5 // indirect
)
