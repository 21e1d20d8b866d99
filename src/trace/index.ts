/** Public surface of the trace step: capture -> flows -> bytes in flight. */
export { traceFile, traceBuffer, TraceBuilder } from './trace.js';
export type { TraceOptions, TraceResult, FlowResult, FlowKind, ClientInference, BifMethod, DirectionCounts, FlowRttMethod, QuicExactSummary } from './result.js';
export { toCsv, toFlowsCsv, toJson } from './format.js';
export { readCapture, readCaptureBuffer, CaptureParser } from './pcap.js';
export type { CaptureInfo, CaptureFormat, ReadOptions } from './pcap.js';
export { PacketRecord, PacketKind, TcpFlag, TcpOpt } from './packet.js';
export type { PacketVisitor } from './packet.js';
export { SampleFlag } from './tcp-bif.js';
export type { TcpSenderStats, LossEpisode, RttMethod } from './tcp-bif.js';
export { quicHeuristicBif, quicKeylogBif } from './quic-bif.js';
export { parseKeyLog, readKeyLog, quicExactBif } from './quic/index.js';
export type { KeyLog, QuicDatagram, QuicExact } from './quic/index.js';
export { markAppLimited } from './app-limited.js';
export type { BifSeries, FlowKey, TransportProtocol } from './types.js';
