// A PX4-flavoured autopilot written with node-mavlink, an implementation of MAVLink
// independent of the one botd uses: TestVehicleAgainstNodeMAVLink runs it (it is test code,
// not part of botd). It listens on TCP, prints {"port": N}, then one JSON line per message it
// receives from botd; it answers COMMAND_LONG with COMMAND_ACK, arms, and climbs after a
// take-off. It exits when botd disconnects.
import { createServer } from 'net'
import {
  MavLinkPacketSplitter, MavLinkPacketParser, MavLinkProtocolV2, send,
  minimal, common, ardupilotmega,
} from 'node-mavlink'

const REGISTRY = { ...minimal.REGISTRY, ...common.REGISTRY, ...ardupilotmega.REGISTRY }
const protocol = () => new MavLinkProtocolV2(1, 1)
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n')

let armed = false
let alt = 0
let climbTo = 0
let mode = (4 << 16) | (3 << 24) // AUTO.LOITER

const server = createServer((sock) => {
  const reader = sock.pipe(new MavLinkPacketSplitter()).pipe(new MavLinkPacketParser())
  reader.on('data', async (packet) => {
    const clazz = REGISTRY[packet.header.msgid]
    if (!clazz) return
    const data = packet.protocol.data(packet.payload, clazz)
    const line = { got: clazz.MSG_NAME, magic: packet.header.magic, sysid: packet.header.sysid }
    if (clazz === minimal.Heartbeat) {
      line.type = data.type
      line.autopilot = data.autopilot
    }
    if (clazz === common.CommandLong) {
      Object.assign(line, { command: data.command, target: data.targetSystem, confirmation: data.confirmation,
        p1: data._param1, p7: data._param7 })
      let result = 0 // ACCEPTED
      if (data.command === 400) { // COMPONENT_ARM_DISARM
        armed = data._param1 === 1
      } else if (data.command === 22) { // NAV_TAKEOFF
        if (!armed) result = 2 // DENIED
        else { climbTo = data._param7 - 500; mode = (4 << 16) | (2 << 24) }
      } else if (data.command === 176) { // DO_SET_MODE
        mode = (data._param2 << 16) | (data._param3 << 24)
      } else {
        result = 3 // UNSUPPORTED
      }
      const ack = new common.CommandAck()
      ack.command = data.command
      ack.result = result
      ack.targetSystem = packet.header.sysid
      ack.targetComponent = packet.header.compid
      await send(sock, ack, protocol())
    }
    out(line)
  })
  const tick = setInterval(async () => {
    if (climbTo > alt) alt = Math.min(climbTo, alt + 1)
    const hb = new minimal.Heartbeat()
    hb.type = 2 // QUADROTOR
    hb.autopilot = 12 // PX4
    hb.baseMode = 1 | (armed ? 128 : 0)
    hb.customMode = mode >>> 0
    hb.systemStatus = 4 // ACTIVE
    hb.mavlinkVersion = 3
    const pos = new common.GlobalPositionInt()
    pos.lat = 474000000
    pos.lon = 85000000
    pos.alt = Math.round((500 + alt) * 1000)
    pos.relativeAlt = Math.round(alt * 1000)
    const ext = new common.ExtendedSysState()
    ext.landedState = alt > 0.05 ? 2 : 1 // IN_AIR : ON_GROUND
    try {
      await send(sock, hb, protocol())
      await send(sock, pos, protocol())
      await send(sock, ext, protocol())
    } catch (e) {
      // botd went away
    }
  }, 50)
  sock.on('close', () => { clearInterval(tick); server.close() })
  sock.on('error', () => {})
})

server.listen(0, '127.0.0.1', () => out({ port: server.address().port }))
