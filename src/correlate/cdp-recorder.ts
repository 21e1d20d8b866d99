/**
 * Records, per request, what CDP knows and the HAR lacks: the connection (NetLog source
 * id) that carried it, the remote endpoint, the protocol and the bytes received. One
 * recorder per page; every string in here came from a measured site and is only data.
 */
import type { CDPSession, Page } from 'playwright-core';

export interface CdpRequest {
  requestId: string;
  url: string;
  resourceType: string;
  mimeType: string;
  connectionId: number | null;
  remoteIp: string | null;
  remotePort: number | null;
  protocol: string | null;
  status: number | null;
  /** Seconds (CDP monotonic timestamps). */
  startTime: number;
  endTime: number | null;
  encodedBytes: number;
  failed: string | null;
}

export class CdpRecorder {
  readonly requests = new Map<string, CdpRequest>();
  private session: CDPSession | undefined;

  async attach(page: Page): Promise<void> {
    const s = await page.context().newCDPSession(page);
    this.session = s;
    s.on('Network.requestWillBeSent', (e) => {
      const prev = this.requests.get(e.requestId);
      // A redirect reuses the request id: keep the final hop's URL.
      this.requests.set(e.requestId, {
        requestId: e.requestId, url: e.request.url, resourceType: e.type ?? 'Other', mimeType: prev?.mimeType ?? '',
        connectionId: null, remoteIp: null, remotePort: null, protocol: null, status: null,
        startTime: prev?.startTime ?? e.timestamp, endTime: null, encodedBytes: 0, failed: null,
      });
    });
    s.on('Network.responseReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.mimeType = e.response.mimeType ?? '';
      r.connectionId = typeof e.response.connectionId === 'number' ? e.response.connectionId : null;
      r.remoteIp = e.response.remoteIPAddress ?? null;
      r.remotePort = e.response.remotePort ?? null;
      r.protocol = e.response.protocol ?? null;
      r.status = e.response.status ?? null;
    });
    s.on('Network.loadingFinished', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.endTime = e.timestamp;
      r.encodedBytes = e.encodedDataLength ?? 0;
    });
    s.on('Network.loadingFailed', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.endTime = e.timestamp;
      r.failed = e.errorText ?? 'failed';
    });
    await s.send('Network.enable');
  }

  list(): CdpRequest[] {
    return [...this.requests.values()].sort((a, b) => a.startTime - b.startTime);
  }
}
