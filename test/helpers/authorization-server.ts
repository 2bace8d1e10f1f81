import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from "jose";

interface Key {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwk: JWK;
}

/**
 * An OAuth authorization server on loopback, as far as a resource server
 * sees one: its metadata (RFC 8414) and its JSON Web Key Set, with keys the
 * test makes, publishes and withdraws, and tokens the test signs.
 */
export class TestIssuer {
  private readonly keys = new Map<string, Key>();
  private published: string[] = [];
  /** How many times the key set was fetched. */
  jwksFetches = 0;

  private readonly server: Server = createServer((req, res) => this.answer(req, res));
  url = "";

  static async start(): Promise<TestIssuer> {
    const issuer = new TestIssuer();
    await new Promise<void>((resolve) => issuer.server.listen(0, "127.0.0.1", resolve));
    issuer.url = `http://127.0.0.1:${(issuer.server.address() as AddressInfo).port}`;
    return issuer;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/.well-known/oauth-authorization-server") {
      return send(200, {
        issuer: this.url,
        jwks_uri: `${this.url}/jwks`,
        authorization_endpoint: `${this.url}/authorize`,
        token_endpoint: `${this.url}/token`,
        response_types_supported: ["code"],
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
      });
    }
    if (req.url === "/token" && req.method === "POST") return this.grant(req, send);
    if (req.url === "/jwks") {
      this.jwksFetches += 1;
      return send(200, { keys: this.published.map((kid) => this.keys.get(kid)!.jwk) });
    }
    send(404, { error: "not_found" });
  }

  /** Clients of the client credentials grant, by id: their secret. */
  readonly clients = new Map<string, string>();
  /** How long the tokens of the grant live, in seconds. */
  grantLifetimeS = 3600;
  /** The grants made, in order: which client, for which resource. */
  readonly grants: { client: string; resource: string | null }[] = [];

  /** The client credentials grant (RFC 6749 §4.4), client_secret_basic, `resource` as RFC 8707 says. */
  private grant(req: IncomingMessage, send: (status: number, body: unknown) => void): void {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const pair = Buffer.from(basic ?? "", "base64").toString();
      const colon = pair.indexOf(":");
      // RFC 6749 §2.3.1 wants both parts form-urlencoded; clients that send them raw are common.
      const decoded = (part: string) => decodeURIComponent(part.replace(/\+/g, " "));
      const [id, secret] = [pair.slice(0, colon), pair.slice(colon + 1)];
      const known = this.clients.get(id) ?? this.clients.get(decoded(id));
      const granted =
        colon > 0 && known !== undefined && (known === secret || known === decoded(secret));
      if (form.get("grant_type") !== "client_credentials" || !granted) {
        return send(401, { error: "invalid_client" });
      }
      const resource = form.get("resource");
      this.grants.push({ client: id, resource });
      void this.sign({
        sub: id,
        client_id: id,
        aud: resource ?? this.url,
        scope: form.get("scope") ?? "",
        exp: Math.floor(Date.now() / 1000) + this.grantLifetimeS,
      }).then((token) =>
        send(200, { access_token: token, token_type: "Bearer", expires_in: this.grantLifetimeS }),
      );
    });
  }

  /** Makes a key pair; published unless told otherwise. */
  async addKey(kid: string, alg = "RS256", publish = true): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
    this.keys.set(kid, { alg, privateKey, publicKey, jwk });
    if (publish) this.published.push(kid);
  }

  /** The key set from now on holds these keys only. */
  publish(...kids: string[]): void {
    this.published = kids;
  }

  publicKey(kid: string): CryptoKey {
    return this.keys.get(kid)!.publicKey;
  }

  /** A token of this issuer: `sub` "alice", an hour to live, unless the claims say otherwise. */
  async sign(claims: JWTPayload, kid = this.published[0]!): Promise<string> {
    const key = this.keys.get(kid)!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.url, sub: "alice", iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: key.alg, kid, typ: "at+jwt" })
      .sign(key.privateKey);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
