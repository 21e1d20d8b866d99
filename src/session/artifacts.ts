/** The raw files a profile's browser session leaves in its directory (read again by the analysis). */
export const ARTIFACTS = { pcap: 'capture.pcap', har: 'session.har', netlog: 'netlog.json', keylog: 'keylog.txt' } as const;
