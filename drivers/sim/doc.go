// Package sim is a Gobot adaptor backed by a deterministic simulated 2D world, so the very same
// Gobot drivers that run on a Raspberry Pi (gpio.MotorDriver, ServoDriver, LedDriver,
// HCSR04Driver, aio.AnalogSensorDriver, i2c.MPU6050Driver, ...) run in tests and in `botd sim`.
//
// A World is a walled rectangular yard with box obstacles (DefaultWorld, or a JSON file via
// LoadWorld). Robots added to it are round differential-drive rovers with a sonar, a battery, an
// IMU, a bump switch and, when wired, quadrature wheel encoders and a GPS receiver. Each robot
// gets its own Adaptor, the "board": motor PWM and direction pins drive the wheels, the HC-SR04
// echo is ray-cast against the walls and boxes, the battery is read as 12-bit ADC counts, the
// MPU6050 is a register model on i2c bus 1 at 0x68, the encoder pins fire edge events as the
// wheels turn, the GPS sends NMEA on a serial port (OpenSerial), and every other pin just
// records what was written (LEDs, relays, buzzers, servos). A NoiseConfig makes a robot
// imperfect, repeatably: noisy encoders, wheels that slip, a gyro bias, GPS noise.
//
// Lifecycle: build the World, AddRobot, NewAdaptor, Connect, start the Gobot drivers; the owner
// calls World.Step(dt) to move time (the encoder edges of the step are handed to the pins' edge
// handlers before Step returns, on its goroutine, with no lock held); halt the drivers, then
// Finalize the adaptor.
//
// What it must never do:
//   - read the wall clock or run a goroutine in the World: time moves only in Step, so the same
//     calls give bit-identical poses (the adaptor's echo goroutine is the one exception, owned by
//     Connect/Finalize, and it uses the wall clock only to drop echoes a driver gave up on);
//   - import anything of botd (bt, missions, drivers): it is only a board, like the raspi
//     adaptor, and depends on nothing but Gobot and the standard library;
//   - call a driver's edge handler from inside a pin Write (the HC-SR04 driver would deadlock),
//     or hold a lock while calling into a driver;
//   - succeed where a Pi would fail: unknown pins, wrong pin roles, oversize i2c blocks and use
//     before Connect are errors here too.
package sim
