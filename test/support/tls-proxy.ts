import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';

/** A test CA, a server certificate for 127.0.0.1 and localhost, and a client certificate, as PEM files. */
export interface TestCertificates {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/**
 * Makes the certificates with the machine's `openssl`: a CA signing a server and a client leaf
 * (TLS stacks such as rustls refuse a self-signed CA used as a server's own certificate).
 */
export function makeTestCertificates(dir: string): TestCertificates {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=got test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  const leaf = (name: string, extensions: string) => {
    writeFileSync(path(`${name}.ext`), extensions);
    openssl('req', ...ec, '-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', `/CN=got test ${name}`);
    openssl(
      'x509',
      '-req',
      '-in',
      path(`${name}.csr`),
      '-CA',
      path('ca.pem'),
      '-CAkey',
      path('ca.key'),
      '-CAcreateserial',
      '-out',
      path(`${name}.pem`),
      '-days',
      '2',
      '-extfile',
      path(`${name}.ext`),
    );
  };
  const common = 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n';
  leaf('server', `${common}extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n`);
  leaf('client', `${common}extendedKeyUsage=clientAuth\n`);
  return {
    caCert: path('ca.pem'),
    serverCert: path('server.pem'),
    serverKey: path('server.key'),
    clientCert: path('client.pem'),
    clientKey: path('client.key'),
  };
}

/** A TLS front for a plaintext gRPC server, as a secured cluster's load balancer would be. */
export interface TlsProxy {
  /** `127.0.0.1:<port>`: the address clients use. */
  address: string;
  /** TLS sessions that completed their handshake (and were forwarded). */
  sessions(): number;
  /** Handshakes that failed, with the reason the server side saw. */
  refusals(): string[];
  close(): Promise<void>;
}

/**
 * Terminates TLS (ALPN h2, as gRPC asks) and pipes each session's bytes to `target`. With
 * `requireClientCert`, only clients presenting a certificate signed by the CA get through (mTLS).
 */
export async function startTlsProxy(o: { target: string; certs: TestCertificates; requireClientCert?: boolean }): Promise<TlsProxy> {
  const [host, port] = [o.target.slice(0, o.target.lastIndexOf(':')), Number(o.target.slice(o.target.lastIndexOf(':') + 1))];
  const open = new Set<Socket>();
  let sessions = 0;
  const refusals: string[] = [];
  const server = createServer(
    {
      cert: readFileSync(o.certs.serverCert),
      key: readFileSync(o.certs.serverKey),
      ALPNProtocols: ['h2'],
      ...(o.requireClientCert ? { requestCert: true, rejectUnauthorized: true, ca: readFileSync(o.certs.caCert) } : {}),
    },
    (secure: TLSSocket) => {
      sessions++;
      const plain = connect(port, host);
      for (const s of [secure, plain]) {
        open.add(s);
        s.on('close', () => open.delete(s));
        s.on('error', () => undefined); // either end may hang up first
      }
      secure.pipe(plain).pipe(secure);
    },
  );
  server.on('tlsClientError', (error) => refusals.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${own}`,
    sessions: () => sessions,
    refusals: () => [...refusals],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
