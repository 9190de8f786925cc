#!/usr/bin/env node
// A real OpenID provider for Tephra's tests: `oidc-provider` 8.x (the version pinned in
// scripts/env.sh, installed by scripts/setup) configured from one JSON file.
//
//   NODE_PATH=$TEPHRA_NODE_MODULES node tests/oidc/provider.cjs config.json
//
// `oidc-provider` is found through NODE_PATH, else $TEPHRA_NODE_MODULES, else
// ~/.cache/tephra/node/node_modules (where scripts/setup puts it). It is an ES module, so it is
// located with require.resolve (which honours NODE_PATH) and then loaded with import().
//
// Listens on 127.0.0.1 only; when ready prints exactly one line, {"issuer":"http://127.0.0.1:<port>"},
// and nothing else on stdout (the launcher parses it). Exits when stdin closes, so a test process
// that dies without cleaning up never leaves a provider behind, and on SIGTERM/SIGINT.
//
// Everything here is test-only: the signing key in keys.json, the cookie keys and the
// /__test/sign endpoint must never be used outside tests. See README.md for the endpoints.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

// stdout carries the ready line and nothing else: anything a library prints with console.log or
// console.info (oidc-provider's notices use console.info) goes to stderr instead, where it is
// visible but harmless. The configuration below is complete enough that none is expected.
console.log = console.info = console.warn = console.error;

function fail(message) {
  process.stderr.write(`oidc provider: ${message}\n`);
  process.exit(2);
}

/** Resolves a package the way the file header describes. */
function resolvePackage(name) {
  try {
    return require.resolve(name);
  } catch {
    // fall through to the known install locations
  }
  const dirs = [
    process.env.TEPHRA_NODE_MODULES,
    path.join(process.env.TEPHRA_CACHE || path.join(os.homedir(), '.cache', 'tephra'), 'node', 'node_modules'),
  ].filter(Boolean);
  for (const dir of dirs) {
    try {
      return require.resolve(name, { paths: [dir] });
    } catch {
      // try the next one
    }
  }
  fail(`cannot find the npm package ${name}; run scripts/setup (it installs it into `
    + `~/.cache/tephra/node/node_modules) and set NODE_PATH or TEPHRA_NODE_MODULES to that directory`);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Configuration

const configPath = process.argv[2];
if (!configPath) fail('usage: provider.cjs <config.json>');
let config;
try {
  config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
} catch (err) {
  fail(`cannot read the configuration ${configPath}: ${err.message}`);
}

const port = config.port ?? 0;
const users = config.users ?? [];
const audience = config.accessTokenAudience;
const idTokenTtl = config.idTokenTtlSeconds ?? 3600;
// RFC 8707 resource indicators are absolute URIs and oidc-provider rejects anything else, and the
// resource is also the access token's audience here, so the audience must be an absolute URI too
// (for example "urn:tephra:api" or the API's base URL).
if (typeof audience !== 'string' || !URL.canParse(audience)) {
  fail(`accessTokenAudience must be an absolute URI (it is the RFC 8707 resource indicator), got ${JSON.stringify(audience)}`);
}
// The scope of the API resource server; requesting it is optional (client_credentials tokens
// without a scope are fine), but it lets an authorization-code client ask for an API token.
const API_SCOPE = 'api';

const clients = (config.clients ?? []).map((c) => {
  const grantTypes = c.grant_types ?? ['authorization_code'];
  const interactive = grantTypes.includes('authorization_code');
  return {
    // Any other client metadata in the file (e.g. token_endpoint_auth_method) passes through.
    ...c,
    grant_types: grantTypes,
    // oidc-provider insists response_types match the grant types: a client_credentials-only
    // client has no redirects at all.
    response_types: interactive ? ['code'] : [],
    redirect_uris: interactive ? (c.redirect_uris ?? []) : [],
  };
});

// The fixed test-only signing key (RS256, one `kid`): tokens stay verifiable across restarts,
// and tests can sign forged tokens with it (see /__test/sign).
const jwks = JSON.parse(fs.readFileSync(path.join(__dirname, 'keys.json'), 'utf8'));
// What /__test/sign signs with: the fixed key, until /__test/rotate makes a new one.
let signingKey = jwks.keys[0];
// Keys made by /__test/rotate, published beside the fixed one.
const rotatedKeys = [];

// A JWK without its private members, as a JWKS publishes it.
function publicPart(jwk) {
  const { d, p, q, dp, dq, qi, ...rest } = jwk;
  return rest;
}

// /__test/rotate: a provider's key rotation as a relying party sees it. A new RS256 key with a new
// `kid` is published in the JWKS beside the old one and /__test/sign signs with it from now on.
// (The provider's own sign-in tokens keep the fixed key: oidc-provider's keys are set at start.)
async function rotate(jose) {
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  signingKey = { ...jwk, kid: `tephra-test-rotated-${rotatedKeys.length + 1}`, alg: 'RS256', use: 'sig' };
  rotatedKeys.push(signingKey);
  return signingKey.kid;
}

// ---------------------------------------------------------------------------------------------
// Storage: one process per test, so a Map is enough. Written here rather than using the bundled
// MemoryAdapter, which prints a "development-only" warning.

class MapAdapter {
  static store = new Map();

  constructor(model) {
    this.model = model;
  }

  static get(key) {
    const entry = MapAdapter.store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt && entry.expiresAt < Date.now()) {
      MapAdapter.store.delete(key);
      return undefined;
    }
    return entry.value;
  }

  static set(key, value, expiresIn) {
    MapAdapter.store.set(key, { value, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : 0 });
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    MapAdapter.set(this.key(id), payload, expiresIn);
    if (this.model === 'Session') MapAdapter.set(`sessionUid:${payload.uid}`, id, expiresIn);
    if (payload.userCode) MapAdapter.set(`userCode:${payload.userCode}`, id, expiresIn);
    if (payload.grantId) {
      // Remembered so revoking a grant (e.g. at logout) revokes its tokens.
      const grantKey = `grant:${payload.grantId}`;
      const keys = MapAdapter.get(grantKey) ?? [];
      keys.push(this.key(id));
      MapAdapter.set(grantKey, keys);
    }
  }

  async find(id) {
    return MapAdapter.get(this.key(id));
  }

  async findByUid(uid) {
    const id = MapAdapter.get(`sessionUid:${uid}`);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = MapAdapter.get(`userCode:${userCode}`);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const payload = MapAdapter.get(this.key(id));
    if (payload) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    MapAdapter.store.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    const grantKey = `grant:${grantId}`;
    for (const key of MapAdapter.get(grantKey) ?? []) MapAdapter.store.delete(key);
    MapAdapter.store.delete(grantKey);
  }
}

// ---------------------------------------------------------------------------------------------
// Small HTML and HTTP helpers

function escapeHtml(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${body}
</main></body>
</html>
`;
}

function send(res, status, contentType, body) {
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function loginForm(uid, error, login) {
  const errorHtml = error
    ? `<p id="login-error" role="alert">${escapeHtml(error)}</p>\n`
    : '';
  const describedBy = error ? ' aria-describedby="login-error"' : '';
  return page('Sign in', `${errorHtml}<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="login">Username</label>
<input id="login" name="login" type="text" autocomplete="username" required autofocus value="${escapeHtml(login ?? '')}"${describedBy}>
<button type="submit">Sign in</button>
</form>`);
}

// ---------------------------------------------------------------------------------------------
// /__test/sign: signs whatever the test asks with the provider's own key. It exists only because
// this is a test fixture: tests use it to forge expired, wrong-audience or otherwise bad tokens
// that are nevertheless signed by the real key. A real provider must never offer this.

function base64url(value) {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function signForTest(jose, body) {
  const request = JSON.parse(body || '{}');
  const claims = request.claims ?? {};
  // Defaults mimic the provider's own JWT access tokens; a null override removes a member.
  const header = { alg: 'RS256', typ: 'JWT', kid: signingKey.kid, ...(request.header ?? {}) };
  for (const [name, value] of Object.entries(header)) {
    if (value === null) delete header[name];
  }
  if (header.alg === 'none') {
    // An unsecured JWT (RFC 7519 section 6): the empty signature follows the second dot.
    return `${base64url(header)}.${base64url(claims)}.`;
  }
  // Any RSA algorithm works with the RSA key (RS256/384/512, PS256/384/512); the `kid` is put in
  // the header as given, so an unknown kid yields a token the JWKS cannot resolve.
  const key = await jose.importJWK({ ...signingKey, alg: header.alg }, header.alg);
  return new jose.CompactSign(Buffer.from(JSON.stringify(claims)))
    .setProtectedHeader(header)
    .sign(key);
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { default: Provider, errors } = await import(pathToFileURL(resolvePackage('oidc-provider')).href);
  // jose is oidc-provider's own dependency (v5 ships CommonJS), so it is installed alongside it.
  const jose = require(resolvePackage('jose'));

  const server = http.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${server.address().port}`;

  const findUser = (predicate) => users.find(predicate);

  const provider = new Provider(issuer, {
    adapter: MapAdapter,
    clients,
    jwks,
    // Fixed test-only cookie signing keys.
    cookies: {
      keys: ['tephra-test-only-cookie-key'],
      // The default long-lived cookie is SameSite=None, which Chromium drops without Secure (and
      // these cookies cannot be Secure over http://127.0.0.1). Lax suffices: the provider and the
      // relying parties all live on 127.0.0.1, the same site.
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    // OpenID scopes and the claims each one releases. `groups` and `posix` are Tephra's own.
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
      posix: ['uid', 'gid'],
    },
    scopes: ['openid', 'profile', 'email', 'groups', 'posix'],
    // Only the authorization code flow: no implicit or hybrid responses.
    responseTypes: ['code'],
    // By default oidc-provider leaves scope claims out of the ID token whenever an access token
    // for userinfo is also issued; Tephra reads them from the ID token.
    conformIdTokenClaims: false,
    async findAccount(ctx, sub) {
      const user = findUser((u) => u.sub === sub);
      if (!user) return undefined;
      return {
        accountId: user.sub,
        // oidc-provider filters these by the granted scopes and requested claims.
        async claims() {
          const claims = {
            sub: user.sub,
            name: user.name,
            preferred_username: user.login,
            email: user.email,
            // A user whose address the provider never checked says so (`emailVerified: false`).
            email_verified: user.emailVerified ?? true,
            groups: user.groups ?? [],
          };
          if (user.uid != null) claims.uid = user.uid;
          if (user.gid != null) claims.gid = user.gid;
          return claims;
        },
      };
    },
    // There is no consent page: every client is trusted, so the grant is created (or widened) in
    // code to cover whatever the request asks for: its OpenID scopes, its `claims` parameter and
    // the API scope of its resource. Called once the user is known, before the consent checks.
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const accountId = oidc.account.accountId;
      const clientId = oidc.client.clientId;
      const grantId = oidc.result?.consent?.grantId || oidc.session.grantIdFor(clientId);
      let grant = grantId ? await oidc.provider.Grant.find(grantId) : undefined;
      if (!grant || grant.accountId !== accountId) {
        grant = new oidc.provider.Grant({ accountId, clientId });
      }
      const oidcScopes = [...oidc.requestParamOIDCScopes].join(' ');
      if (oidcScopes) grant.addOIDCScope(oidcScopes);
      const claims = [...oidc.requestParamClaims];
      if (claims.length) grant.addOIDCClaims(claims);
      for (const [indicator, resourceServer] of Object.entries(oidc.resourceServers)) {
        const scopes = [...oidc.requestParamScopes].filter((s) => resourceServer.scopes.has(s));
        if (scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
      }
      await grant.save();
      return grant;
    },
    interactions: {
      url: (ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    pkce: {
      methods: ['S256'],
      // Every authorization request must carry an S256 code_challenge, confidential clients too.
      required: () => true,
    },
    features: {
      // Our own interaction endpoints replace the built-in development ones.
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: {
        enabled: true,
        // The confirmation page. `form` holds the hidden `xsrf` input; the button adds
        // logout=yes, which ends the whole session rather than only this client's part.
        async logoutSource(ctx, form) {
          ctx.type = 'html';
          ctx.body = page('Sign out', `${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`);
        },
        async postLogoutSuccessSource(ctx) {
          ctx.type = 'html';
          ctx.body = page('Signed out', '<p>You are signed out.</p>');
        },
      },
      resourceIndicators: {
        enabled: true,
        // A token request need not repeat the resource an authorization request already named.
        useGrantedResource: async () => true,
        // The only resource server is the API: its access tokens are RS256 JWTs for `audience`.
        async getResourceServerInfo(ctx, resourceIndicator) {
          if (resourceIndicator !== audience) {
            throw new errors.InvalidTarget(`unknown resource ${resourceIndicator}; this provider only serves ${audience}`);
          }
          return {
            scope: API_SCOPE,
            audience,
            accessTokenTTL: 300,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    ttl: {
      AccessToken: 300,
      AuthorizationCode: 60,
      ClientCredentials: 300,
      IdToken: idTokenTtl,
      Interaction: 600,
      Session: 600,
      Grant: 600,
      RefreshToken: 600,
    },
    // Token and discovery requests from any origin are fine for a test fixture.
    clientBasedCORS: () => true,
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Error', `<p id="error">${escapeHtml(out.error)}</p>
<p id="error-description">${escapeHtml(out.error_description ?? '')}</p>`);
    },
  });
  // Expected failures (bad tokens, wrong secrets) are the tests' business; only bugs are logged.
  provider.on('server_error', (ctx, err) => console.error('oidc provider: server error:', err));

  const oidcCallback = provider.callback();

  async function interaction(req, res, uid, action) {
    let details;
    try {
      details = await provider.interactionDetails(req, res);
    } catch (err) {
      // An expired or unknown interaction, or a browser without the interaction cookie.
      send(res, 400, 'text/html; charset=utf-8', page('Sign-in expired', `<p id="error">${escapeHtml(err.message)}</p>`));
      return;
    }
    if (details.uid !== uid) {
      send(res, 400, 'text/html; charset=utf-8', page('Sign-in expired', '<p id="error">interaction mismatch</p>'));
      return;
    }
    if (details.prompt.name !== 'login') {
      // Only consent can be asked for, and loadExistingGrant has granted everything already.
      await provider.interactionFinished(req, res, { consent: {} }, { mergeWithLastSubmission: true });
      return;
    }
    if (action === undefined && req.method === 'GET') {
      send(res, 200, 'text/html; charset=utf-8', loginForm(uid));
      return;
    }
    if (action === 'login' && req.method === 'POST') {
      const login = new URLSearchParams(await readBody(req)).get('login')?.trim() ?? '';
      const user = findUser((u) => u.login === login);
      if (!user) {
        send(res, 200, 'text/html; charset=utf-8', loginForm(uid, `Unknown user "${login}".`, login));
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: user.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
  }

  server.on('request', async (req, res) => {
    try {
      const { pathname } = new URL(req.url, issuer);
      const match = /^\/interaction\/([^/]+)(?:\/(login))?\/?$/.exec(pathname);
      if (match) {
        await interaction(req, res, match[1], match[2]);
      } else if (pathname === '/__test/sign' && req.method === 'POST') {
        let jwt;
        try {
          jwt = await signForTest(jose, await readBody(req));
        } catch (err) {
          send(res, 400, 'application/json', JSON.stringify({ error: err.message }));
          return;
        }
        send(res, 200, 'application/json', JSON.stringify({ jwt }));
      } else if (pathname === '/__test/rotate' && req.method === 'POST') {
        send(res, 200, 'application/json', JSON.stringify({ kid: await rotate(jose) }));
      } else if (pathname === '/jwks' && req.method === 'GET' && rotatedKeys.length > 0) {
        const keys = [...jwks.keys, ...rotatedKeys].map(publicPart);
        send(res, 200, 'application/jwk-set+json; charset=utf-8', JSON.stringify({ keys }));
      } else {
        oidcCallback(req, res);
      }
    } catch (err) {
      console.error('oidc provider: request failed:', err);
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.destroy();
    }
  });

  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
}

// The launcher keeps our stdin open for as long as it wants us; EOF means it is gone.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));

main().catch((err) => fail(err.stack || String(err)));
