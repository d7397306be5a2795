//go:build linux

package sim_test

import (
	"fmt"
	"time"

	"gobot.io/x/gobot/v2/drivers/aio"
	"gobot.io/x/gobot/v2/drivers/gpio"

	"github.com/botd-project/botd/drivers/sim"
)

// The same Gobot drivers as on a Raspberry Pi, on a simulated board; time moves only in Step.
func Example() {
	world := sim.DefaultWorld()
	robot := world.AddRobot("rover-1", sim.RobotConfig{})
	board := sim.NewAdaptor(robot)
	if err := board.Connect(); err != nil {
		panic(err)
	}
	defer board.Finalize()

	left := gpio.NewMotorDriver(board, "11", gpio.WithMotorDirectionPin("13"), gpio.WithName("left"))
	right := gpio.NewMotorDriver(board, "15", gpio.WithMotorDirectionPin("16"), gpio.WithName("right"))
	battery := aio.NewAnalogSensorDriver(board, "A0", aio.WithName("battery"),
		aio.WithSensorScaler(aio.AnalogSensorLinearScaler(0, sim.ADCMax, 0, 16.8)))
	for _, d := range []interface{ Start() error }{left, right, battery} {
		if err := d.Start(); err != nil {
			panic(err)
		}
	}

	_ = left.Forward(255)
	_ = right.Forward(255)
	for range 20 {
		world.Step(100 * time.Millisecond)
	}
	_ = left.Off()
	_ = right.Off()

	x, y, heading := robot.Pose()
	ahead, _ := robot.SonarRange()
	volts, _ := battery.Read()
	fmt.Printf("pose (%.2f, %.2f) heading %.2f, crate %.2f m ahead, battery %.1f V\n", x, y, heading, ahead, volts)
	// Output: pose (1.00, 0.00) heading 0.00, crate 1.85 m ahead, battery 12.4 V
}
