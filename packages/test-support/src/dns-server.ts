import dns2 from 'dns2';

const { Packet } = dns2;

export interface ZoneRecords {
  cname?: string;
  txt?: string[];
}

export interface DnsServer {
  /** For DNS_SERVERS. */
  address: string;
  /** Sets (or with undefined removes) the records of a name. */
  set(name: string, records: ZoneRecords | undefined): void;
  close(): Promise<void>;
}

// A real DNS server on loopback (UDP), answering CNAME and TXT questions from an in-memory zone:
// NXDOMAIN for unknown names, an empty answer for a known name without that record type.
export async function startDnsServer(): Promise<DnsServer> {
  const zone = new Map<string, ZoneRecords>();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = (question?.name ?? '').toLowerCase();
      const records = zone.get(name);
      if (!records) response.header.rcode = Packet.RCODE.NXDOMAIN;
      else if (question?.type === Packet.TYPE.CNAME && records.cname) {
        response.answers.push(
          new Packet.Resource({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 1, domain: records.cname }),
        );
      } else if (question?.type === Packet.TYPE.TXT) {
        for (const text of records.txt ?? [])
          response.answers.push(
            new Packet.Resource({ name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data: text }),
          );
      }
      void send(response);
    },
  });
  // A malformed test packet must not crash the test process; the test sees the missing answer.
  server.on('requestError', () => {});
  await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const { port } = server.addresses().udp as { port: number };
  return {
    address: `127.0.0.1:${port}`,
    set(name, records) {
      if (records) zone.set(name.toLowerCase(), records);
      else zone.delete(name.toLowerCase());
    },
    close: async () => {
      await server.close();
    },
  };
}
