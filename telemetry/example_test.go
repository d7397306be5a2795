package telemetry_test

import (
	"fmt"

	"github.com/botd-project/botd/telemetry"
)

func ExampleNewTopics() {
	t, err := telemetry.NewTopics("", "rover-1")
	if err != nil {
		panic(err)
	}
	fmt.Println(t.State())
	fmt.Println(t.Cmd())
	fmt.Println(telemetry.RobotsFilter("", telemetry.LeafConnection))
	fmt.Println(telemetry.GCSStateTopic("", "ops"))
	// Output:
	// botd/v1/rover-1/state
	// botd/v1/rover-1/cmd
	// botd/v1/+/connection
	// botd/v1/gcs/ops/state
}
