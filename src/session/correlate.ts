/**
 * Ties each request the page made to the flow in the capture that carried it:
 * CDP request -> connectionId (= NetLog SOCKET / QUIC_SESSION source id) -> the client's
 * local port(s) -> the capture's flow with that client port and server address.
 */
import { assetType, type AssetRule } from '../correlate/asset-type.js';
import { isBrowserBackgroundRequest } from '../correlate/background.js';
import type { CdpRequest } from '../correlate/cdp-recorder.js';
import { portOf, type NetLogEndpoint } from '../correlate/netlog.js';
import type { FlowResult } from '../trace/result.js';
import type { AssetType } from '../results/schema.js';

export interface CorrelatedRequest {
  request: CdpRequest;
  assetType: AssetType;
  flow: FlowResult | null;
  background: boolean;
}

export interface Correlation {
  requests: CorrelatedRequest[];
  /** Share of the page's received bytes (non-background) tied to a flow. */
  byteCoverage: number;
  /** Per flow id: bytes per asset type. */
  flowAssets: Map<string, Map<AssetType, number>>;
}

export function correlate(requests: CdpRequest[], endpoints: Map<number, NetLogEndpoint>, flows: FlowResult[], rules: readonly AssetRule[] = [], opts: { lab?: boolean } = {}): Correlation {
  // Index capture flows by client port (+ server address, to be safe across protocols).
  const byPort = new Map<number, FlowResult[]>();
  for (const f of flows) {
    const list = byPort.get(f.key.clientPort) ?? [];
    list.push(f);
    byPort.set(f.key.clientPort, list);
    // A migrated QUIC connection has several paths (client ports): index them all.
    for (const path of f.paths) {
      const m = /:(\d+)-/.exec(path);
      const port = m ? Number(m[1]) : NaN;
      if (Number.isFinite(port) && port !== f.key.clientPort) (byPort.get(port) ?? byPort.set(port, []).get(port)!).push(f);
    }
  }
  const out: CorrelatedRequest[] = [];
  const flowAssets = new Map<string, Map<AssetType, number>>();
  let total = 0;
  let covered = 0;
  for (const r of requests) {
    const background = isBrowserBackgroundRequest({ url: r.url, resourceType: r.resourceType, errorText: r.failed ?? undefined }, { lab: opts.lab });
    const type = assetType({ url: r.url, resourceType: r.resourceType, mimeType: r.mimeType }, rules) as AssetType;
    let flow: FlowResult | null = null;
    const ep = r.connectionId !== null ? endpoints.get(r.connectionId) : undefined;
    if (ep) {
      const wantProto = ep.kind === 'quic' ? 'udp' : 'tcp';
      for (const local of ep.localAddresses) {
        const candidates = (byPort.get(portOf(local)) ?? []).filter((f) => f.key.protocol === wantProto &&
          (r.remoteIp === null || f.key.serverIp === r.remoteIp || f.key.serverIp === (ep.remoteAddress ?? '').replace(/:\d+$/, '')));
        if (candidates.length > 0) { flow = candidates[0]; break; }
      }
    }
    if (!background) {
      total += r.encodedBytes;
      if (flow) covered += r.encodedBytes;
    }
    if (flow && !background) {
      const m = flowAssets.get(flow.id) ?? new Map<AssetType, number>();
      m.set(type, (m.get(type) ?? 0) + r.encodedBytes);
      flowAssets.set(flow.id, m);
    }
    out.push({ request: r, assetType: type, flow, background });
  }
  return { requests: out, byteCoverage: total > 0 ? covered / total : 1, flowAssets };
}
