#!/usr/bin/env node
// Checks provider.cjs end to end the way Tephra will use it, with nothing but fetch: the
// authorization code flow with PKCE as a plain HTTP client walks it (redirects followed by hand,
// cookies kept by hand), ID token verification against the JWKS, an API token from the
// authorization code flow and from client_credentials, /__test/sign, RP-initiated logout, and
// the provider's exit on stdin EOF and on SIGTERM.
//
//   NODE_PATH=~/.cache/tephra/node/node_modules node tests/oidc/selftest.cjs
//
// Exits 0 when everything holds; otherwise prints the failed check and exits 1.
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');

let jose;
try {
  jose = require('jose');
} catch {
  console.error('selftest: cannot load jose; set NODE_PATH to the node_modules scripts/setup fills '
    + '(~/.cache/tephra/node/node_modules)');
  process.exit(2);
}

const AUDIENCE = 'urn:tephra:api';
const WEB = {
  client_id: 'tephra-web',
  client_secret: 'web-secret',
  redirect_uris: ['http://127.0.0.1:9/auth/callback'],
  post_logout_redirect_uris: ['http://127.0.0.1:9/signed-out'],
  grant_types: ['authorization_code', 'client_credentials'],
};
// A machine client that authenticates with client_secret_post instead of the default basic.
const ROBOT = {
  client_id: 'robot',
  client_secret: 'robot-secret',
  redirect_uris: [],
  post_logout_redirect_uris: [],
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_post',
};
const ADA = {
  login: 'ada',
  sub: 'user-ada',
  name: 'Ada Lovelace',
  email: 'ada@example.test',
  groups: ['ml-team', 'admins'],
  uid: 1000,
  gid: 1001,
};

// ---------------------------------------------------------------------------------------------
// Starting and stopping the provider

async function startProvider(dir) {
  const configPath = path.join(dir, 'config.json');
  fs.writeFileSync(configPath, JSON.stringify({
    port: 0,
    clients: [WEB, ROBOT],
    users: [ADA],
    accessTokenAudience: AUDIENCE,
    idTokenTtlSeconds: 600,
  }));
  const child = spawn(process.execPath, [path.join(__dirname, 'provider.cjs'), configPath], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const lines = readline.createInterface({ input: child.stdout });
  const extraStdout = [];
  const ready = new Promise((resolve, reject) => {
    let first = true;
    lines.on('line', (line) => {
      if (first) {
        first = false;
        resolve(line);
      } else {
        extraStdout.push(line);
      }
    });
    exited.then(({ code }) => reject(new Error(`provider exited (${code}) before it was ready:\n${stderr}`)));
    setTimeout(() => reject(new Error(`provider not ready after 15 s:\n${stderr}`)), 15000).unref();
  });
  const line = await ready;
  const { issuer, ...rest } = JSON.parse(line);
  assert.match(issuer, /^http:\/\/127\.0\.0\.1:\d+$/, `ready line ${line}`);
  assert.deepEqual(rest, {}, `the ready line has only the issuer: ${line}`);
  return { child, issuer, exited, stderr: () => stderr, extraStdout };
}

function withTimeout(promise, ms, what) {
  return Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref()),
  ]);
}

// ---------------------------------------------------------------------------------------------
// A browser without JavaScript: a cookie jar that honours Path, and requests that never follow
// redirects on their own.

class Jar {
  cookies = new Map(); // "name;path" -> { name, value, path }

  store(res) {
    for (const header of res.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let cookiePath = '/';
      let expired = value === '';
      for (const attribute of attributes) {
        const [key, val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') cookiePath = val;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) expired = true;
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) expired = true;
      }
      const key = `${name};${cookiePath}`;
      if (expired) this.cookies.delete(key);
      else this.cookies.set(key, { name, value, path: cookiePath });
    }
  }

  header(url) {
    const { pathname } = new URL(url);
    return [...this.cookies.values()]
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  has(name) {
    return [...this.cookies.values()].some((c) => c.name === name);
  }
}

async function request(jar, url, { method = 'GET', form, headers = {} } = {}) {
  const init = { method, redirect: 'manual', headers: { ...headers } };
  const cookie = jar.header(url);
  if (cookie) init.headers.cookie = cookie;
  if (form) {
    init.body = new URLSearchParams(form).toString();
    init.headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  const res = await fetch(url, init);
  jar.store(res);
  const body = await res.text();
  const location = res.headers.get('location');
  return { status: res.status, body, location: location && new URL(location, url).href, headers: res.headers };
}

/** Follows redirects on the provider until one leaves it (the redirect back to the client). */
async function followToClient(jar, issuer, response) {
  let res = response;
  for (let hops = 0; hops < 10; hops += 1) {
    if (res.status < 300 || res.status >= 400) return res;
    if (!res.location.startsWith(`${issuer}/`)) return res;
    res = await request(jar, res.location);
  }
  throw new Error('too many redirects');
}

function pkce() {
  const verifier = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

function authorizationUrl(discovery, params) {
  const url = new URL(discovery.authorization_endpoint);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}

function basic(client) {
  return `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
}

async function tokenRequest(discovery, form, headers = {}) {
  const res = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, json: await res.json() };
}

function decodeHeader(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString());
}

// ---------------------------------------------------------------------------------------------

const steps = [];
async function step(name, fn) {
  try {
    const result = await fn();
    steps.push(name);
    console.log(`ok   ${name}`);
    return result;
  } catch (err) {
    console.log(`FAIL ${name}`);
    throw err;
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tephra-oidc-selftest-'));
  let provider;
  try {
    provider = await step('provider starts and prints its issuer', () => startProvider(dir));
    const { issuer } = provider;

    const discovery = await step('discovery advertises code+PKCE, logout, the scopes and claims', async () => {
      const res = await fetch(`${issuer}/.well-known/openid-configuration`);
      assert.equal(res.status, 200);
      const d = await res.json();
      assert.equal(d.issuer, issuer);
      assert.equal(d.end_session_endpoint, `${issuer}/session/end`);
      assert.deepEqual(d.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(d.response_types_supported, ['code']);
      for (const scope of ['openid', 'profile', 'email', 'groups', 'posix']) {
        assert.ok(d.scopes_supported.includes(scope), `scope ${scope}`);
      }
      for (const claim of ['name', 'email', 'groups', 'uid', 'gid']) {
        assert.ok(d.claims_supported.includes(claim), `claim ${claim}`);
      }
      assert.ok(d.grant_types_supported.includes('client_credentials'));
      return d;
    });
    const jwks = jose.createRemoteJWKSet(new URL(discovery.jwks_uri));

    const jar = new Jar();
    const redirectUri = WEB.redirect_uris[0];

    await step('an authorization request without PKCE is refused', async () => {
      const res = await request(jar, authorizationUrl(discovery, {
        client_id: WEB.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', state: 's', nonce: 'n',
      }));
      assert.equal(res.status, 303);
      const back = new URL(res.location);
      assert.equal(`${back.origin}${back.pathname}`, redirectUri);
      assert.equal(back.searchParams.get('error'), 'invalid_request');
      assert.match(back.searchParams.get('error_description'), /PKCE/);
    });

    const { verifier, challenge } = pkce();
    const state = crypto.randomBytes(8).toString('hex');
    const nonce = crypto.randomBytes(8).toString('hex');

    const interactionUrl = await step('the authorization request redirects to the login page', async () => {
      const res = await request(jar, authorizationUrl(discovery, {
        client_id: WEB.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid profile email groups posix',
        state,
        nonce,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }));
      assert.equal(res.status, 303, res.body);
      assert.match(res.location, new RegExp(`^${issuer}/interaction/[\\w-]+$`));
      return res.location;
    });

    await step('the login page is a plain form: label Username, input login, button Sign in', async () => {
      const res = await request(jar, interactionUrl);
      assert.equal(res.status, 200, res.body);
      assert.match(res.body, /<label for="login">Username<\/label>/);
      assert.match(res.body, /<input id="login" name="login"/);
      assert.match(res.body, /<button type="submit">Sign in<\/button>/);
      assert.match(res.body, new RegExp(`action="/interaction/[\\w-]+/login"`));
    });

    await step('an unknown login shows the form again with an error', async () => {
      const res = await request(jar, `${interactionUrl}/login`, { method: 'POST', form: { login: 'mallory' } });
      assert.equal(res.status, 200);
      assert.match(res.body, /id="login-error" role="alert">Unknown user &#34;mallory&#34;/);
      assert.match(res.body, /<input id="login" name="login"/);
    });

    const code = await step('signing in as ada leads back to the client with code, state and iss', async () => {
      const res = await followToClient(jar, issuer, await request(jar, `${interactionUrl}/login`, {
        method: 'POST', form: { login: ADA.login },
      }));
      assert.equal(res.status, 303, res.body);
      const back = new URL(res.location);
      assert.equal(`${back.origin}${back.pathname}`, redirectUri, res.location);
      assert.equal(back.searchParams.get('error'), null, res.location);
      assert.equal(back.searchParams.get('state'), state);
      assert.equal(back.searchParams.get('iss'), issuer);
      assert.ok(jar.has('_session'), 'the provider set its session cookie');
      return back.searchParams.get('code');
    });

    await step('the code is refused with the wrong code_verifier', async () => {
      const res = await tokenRequest(discovery, {
        grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pkce().verifier,
      }, { authorization: basic(WEB) });
      assert.equal(res.status, 400);
      assert.equal(res.json.error, 'invalid_grant');
    });

    // The failed attempt above consumed nothing: PKCE is checked before the code is used up.
    const tokens = await step('the code exchanges for tokens (client_secret_basic + code_verifier)', async () => {
      const res = await tokenRequest(discovery, {
        grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier,
      }, { authorization: basic(WEB) });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.ok(res.json.id_token);
      assert.ok(res.json.access_token);
      return res.json;
    });

    await step('the ID token verifies with the JWKS and carries every claim', async () => {
      const { payload, protectedHeader } = await jose.jwtVerify(tokens.id_token, jwks, {
        issuer, audience: WEB.client_id, algorithms: ['RS256'],
      });
      assert.equal(protectedHeader.kid, 'tephra-test-rs256');
      assert.equal(payload.sub, ADA.sub);
      assert.equal(payload.nonce, nonce);
      assert.equal(payload.name, ADA.name);
      assert.equal(payload.preferred_username, ADA.login);
      assert.equal(payload.email, ADA.email);
      assert.equal(payload.email_verified, true);
      assert.deepEqual(payload.groups, ADA.groups);
      assert.equal(payload.uid, ADA.uid);
      assert.equal(payload.gid, ADA.gid);
      assert.equal(payload.exp - payload.iat, 600, 'idTokenTtlSeconds');
    });

    await step('without the groups and posix scopes those claims are left out', async () => {
      const p = pkce();
      // Signed in already: the provider answers straight away, without a login page.
      const res = await followToClient(jar, issuer, await request(jar, authorizationUrl(discovery, {
        client_id: WEB.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid email',
        state: 's2', nonce: 'n2', code_challenge: p.challenge, code_challenge_method: 'S256',
      })));
      const back = new URL(res.location);
      assert.ok(back.searchParams.get('code'), res.location);
      const t = await tokenRequest(discovery, {
        grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: p.verifier,
      }, { authorization: basic(WEB) });
      const { payload } = await jose.jwtVerify(t.json.id_token, jwks, { issuer, audience: WEB.client_id });
      assert.equal(payload.email, ADA.email);
      for (const claim of ['groups', 'uid', 'gid', 'name']) assert.equal(payload[claim], undefined, claim);
    });

    await step('an authorization request for the API resource yields a JWT access token', async () => {
      const p = pkce();
      const res = await followToClient(jar, issuer, await request(jar, authorizationUrl(discovery, {
        client_id: WEB.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid groups api',
        resource: AUDIENCE, state: 's3', nonce: 'n3', code_challenge: p.challenge, code_challenge_method: 'S256',
      })));
      const back = new URL(res.location);
      assert.ok(back.searchParams.get('code'), res.location);
      // No resource parameter here: the granted one is used.
      const t = await tokenRequest(discovery, {
        grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: redirectUri, code_verifier: p.verifier,
      }, { authorization: basic(WEB) });
      assert.equal(t.status, 200, JSON.stringify(t.json));
      assert.equal(t.json.scope, 'api');
      const { payload, protectedHeader } = await jose.jwtVerify(t.json.access_token, jwks, {
        issuer, audience: AUDIENCE, algorithms: ['RS256'], typ: 'at+jwt',
      });
      assert.equal(protectedHeader.alg, 'RS256');
      assert.equal(payload.sub, ADA.sub);
      assert.equal(payload.client_id, WEB.client_id);
      assert.equal(payload.exp - payload.iat, 300);
      const id = await jose.jwtVerify(t.json.id_token, jwks, { issuer, audience: WEB.client_id });
      assert.deepEqual(id.payload.groups, ADA.groups);
    });

    await step('client_credentials with client_secret_basic gives a JWT for the API audience', async () => {
      const res = await tokenRequest(discovery, {
        grant_type: 'client_credentials', resource: AUDIENCE,
      }, { authorization: basic(WEB) });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.token_type, 'Bearer');
      assert.equal(res.json.expires_in, 300);
      const { payload } = await jose.jwtVerify(res.json.access_token, jwks, {
        issuer, audience: AUDIENCE, algorithms: ['RS256'], typ: 'at+jwt',
      });
      assert.equal(payload.aud, AUDIENCE);
      assert.equal(payload.sub, WEB.client_id);
      assert.equal(payload.client_id, WEB.client_id);
    });

    await step('client_credentials with client_secret_post and scope=api', async () => {
      const res = await tokenRequest(discovery, {
        grant_type: 'client_credentials', resource: AUDIENCE, scope: 'api',
        client_id: ROBOT.client_id, client_secret: ROBOT.client_secret,
      });
      assert.equal(res.status, 200, JSON.stringify(res.json));
      assert.equal(res.json.scope, 'api');
      const { payload } = await jose.jwtVerify(res.json.access_token, jwks, { issuer, audience: AUDIENCE });
      assert.equal(payload.scope, 'api');
      assert.equal(payload.sub, ROBOT.client_id);
    });

    await step('client_credentials refuses a wrong secret and an unknown resource', async () => {
      const wrong = await tokenRequest(discovery, { grant_type: 'client_credentials', resource: AUDIENCE },
        { authorization: basic({ ...WEB, client_secret: 'nope' }) });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.json.error, 'invalid_client');
      const other = await tokenRequest(discovery, { grant_type: 'client_credentials', resource: 'urn:other' },
        { authorization: basic(WEB) });
      assert.equal(other.status, 400);
      assert.equal(other.json.error, 'invalid_target');
    });

    const sign = async (body) => {
      const res = await fetch(`${issuer}/__test/sign`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
      });
      assert.equal(res.status, 200);
      return (await res.json()).jwt;
    };

    await step('/__test/sign forges tokens with the real key', async () => {
      const now = Math.floor(Date.now() / 1000);
      const good = await sign({ header: { typ: 'at+jwt' }, claims: { iss: issuer, aud: AUDIENCE, sub: 'forged', iat: now, exp: now + 60 } });
      const verified = await jose.jwtVerify(good, jwks, { issuer, audience: AUDIENCE, typ: 'at+jwt' });
      assert.equal(verified.payload.sub, 'forged');
      assert.equal(verified.protectedHeader.kid, 'tephra-test-rs256');

      const expired = await sign({ claims: { iss: issuer, aud: AUDIENCE, sub: 'x', iat: now - 600, exp: now - 300 } });
      await assert.rejects(jose.jwtVerify(expired, jwks, { issuer, audience: AUDIENCE }), { code: 'ERR_JWT_EXPIRED' });

      const wrongAudience = await sign({ claims: { iss: issuer, aud: 'urn:someone-else', sub: 'x', exp: now + 60 } });
      await assert.rejects(jose.jwtVerify(wrongAudience, jwks, { issuer, audience: AUDIENCE }), { code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });

      const unknownKid = await sign({ header: { kid: 'no-such-key' }, claims: { iss: issuer, aud: AUDIENCE, exp: now + 60 } });
      assert.equal(decodeHeader(unknownKid).kid, 'no-such-key');
      await assert.rejects(jose.jwtVerify(unknownKid, jwks), { code: 'ERR_JWKS_NO_MATCHING_KEY' });

      const unsigned = await sign({ header: { alg: 'none' }, claims: { iss: issuer, aud: AUDIENCE, exp: now + 60 } });
      assert.ok(unsigned.endsWith('.'), unsigned);
      assert.equal(decodeHeader(unsigned).alg, 'none');
      await assert.rejects(jose.jwtVerify(unsigned, jwks));

      // A token whose payload was changed after signing fails verification.
      const [h, , s] = good.split('.');
      const tampered = `${h}.${Buffer.from(JSON.stringify({ iss: issuer, aud: AUDIENCE, sub: 'admin', exp: now + 60 })).toString('base64url')}.${s}`;
      await assert.rejects(jose.jwtVerify(tampered, jwks), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    });

    await step('RP-initiated logout: the confirmation form posts back and redirects with state', async () => {
      const url = new URL(discovery.end_session_endpoint);
      url.searchParams.set('id_token_hint', tokens.id_token);
      url.searchParams.set('post_logout_redirect_uri', WEB.post_logout_redirect_uris[0]);
      url.searchParams.set('state', 'bye');
      const page = await request(jar, url.href);
      assert.equal(page.status, 200, page.body);
      assert.match(page.body, /<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out<\/button>/);
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
      assert.ok(xsrf, 'the page carries the xsrf token');
      const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.body)?.[1];
      assert.equal(action, `${issuer}/session/end/confirm`);
      const res = await request(jar, action, { method: 'POST', form: { xsrf, logout: 'yes' } });
      assert.equal(res.status, 303, res.body);
      assert.equal(res.location, `${WEB.post_logout_redirect_uris[0]}?state=bye`);
      assert.ok(!jar.has('_session'), 'the session cookie is cleared');
    });

    await step('after logout a new authorization request asks to sign in again', async () => {
      const p = pkce();
      const res = await request(jar, authorizationUrl(discovery, {
        client_id: WEB.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'openid',
        state: 's4', nonce: 'n4', code_challenge: p.challenge, code_challenge_method: 'S256',
      }));
      assert.equal(res.status, 303);
      assert.match(res.location, new RegExp(`^${issuer}/interaction/`));
    });

    await step('the provider was quiet: one stdout line, nothing on stderr', async () => {
      assert.deepEqual(provider.extraStdout, []);
      assert.equal(provider.stderr(), '');
    });

    await step('closing stdin stops the provider', async () => {
      provider.child.stdin.end();
      const { code } = await withTimeout(provider.exited, 5000, 'exit after stdin EOF');
      assert.equal(code, 0);
    });

    await step('SIGTERM stops the provider', async () => {
      const second = await startProvider(dir);
      second.child.kill('SIGTERM');
      const { code, signal } = await withTimeout(second.exited, 5000, 'exit after SIGTERM');
      assert.ok(code === 0 || signal === 'SIGTERM', `exit ${code} ${signal}`);
    });

    console.log(`selftest passed: ${steps.length} checks`);
  } finally {
    if (provider && provider.child.exitCode === null) provider.child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.log(err.stack || String(err));
  process.exit(1);
});
