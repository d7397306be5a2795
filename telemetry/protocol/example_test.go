package protocol_test

import (
	"fmt"

	"github.com/botd-project/botd/telemetry/protocol"
)

func ExampleNewTopics() {
	t, err := protocol.NewTopics("", "rover-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.State())
	fmt.Println(t.Cmd())
	fmt.Println(protocol.RobotsFilter("", protocol.LeafConnection))
	fmt.Println(protocol.GCSStateTopic("", "ops"))
	// Output:
	// botd/v1/rover-1/state
	// botd/v1/rover-1/cmd
	// botd/v1/+/connection
	// botd/v1/gcs/ops/state
}
