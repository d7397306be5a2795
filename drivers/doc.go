// Package drivers turns a robot's configuration into devices built on real Gobot drivers, and
// offers the behavior-tree leaves that drive them.
//
// A Config (YAML) names the boards ("adaptors": the simulated board of package sim, a Raspberry
// Pi through gobot's raspi platform, an Arduino through firmata in a build with -tags firmata)
// and the devices wired to them. This package knows no device kind by itself: each kind is
// described by a KindInfo in a Registry (the daemon's is drivers/standard's), decodes and
// validates its own section (a Spec), builds its Gobot drivers through a Builder, names the
// blackboard keys it writes, defines its safe state and offers its leaves. `botd nodes` and
// docs/CONFIGURATION.md list the kinds and their leaves.
//
// Build makes a Robot from a Config; Start connects the boards, starts the drivers and puts every
// actuator in its safe state before anything else happens; Close makes everything safe again,
// halts the drivers and releases the boards. Sensors are sampled by goroutines the Robot owns
// (one per board for its quick sensors, one per sensor whose read waits; see sampler) or, for
// virtual time, by the caller through Sample; a tick copies the latest samples, each
// with its own timestamp, into the agent's blackboard through a Binding.
//
// Leaves (Register) resolve their device when a mission is compiled, so a mission naming a
// device the config lacks is refused at load time; on the tick path they reach it by index on
// the agent's robot. They never touch hardware: they set commands on actuators through the
// safety envelope, which clamps them to the configured limits, tracks which action owns each
// actuator, refuses everything during an e-stop, and writes only changes to the Gobot drivers
// when the tick loop calls Apply.
//
// What this package must never do:
//   - block the tick: leaves, Snapshot and the envelope take only short locks; slow sensor I/O
//     lives in goroutines owned by the Robot, and Apply performs only the writes of one tick;
//   - let a leaf write a driver directly, or let a command through during an e-stop;
//   - undo a command that another action has taken over (a halted action stops only what it
//     still owns);
//   - leave an actuator in anything but its safe state at start, on Close, at mission end
//     (Safe) or on EStop, whatever failed before;
//   - panic on a driver or sensor error: errors become ERROR statuses, Faults and returned
//     errors;
//   - start a goroutine it does not stop and wait for (gobot's own Eventer goroutines aside),
//     or read the wall clock where Options.Now is given;
//   - import missions, telemetry or cmd: it knows devices, not missions.
//
// Gobot's gpio and i2c drivers build only on Linux (they import go-gpiocdev); on other systems
// Config parsing, validation and the leaves work, and Build returns ErrUnsupported.
//
// Boards are chosen at build time: the default build has the simulated board and the Raspberry
// Pi. Gobot's firmata adaptor pulls gobot's BLE client, tinygo's bluetooth and dbus into the
// binary, so it is compiled in only with -tags firmata; without it, a config with a firmata
// board is refused when it is validated, saying how to build with firmata support.
package drivers
