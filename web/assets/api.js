// The JSON API of `profview serve` (doc/api.md). Every path is relative to the page's
// /TOKEN/ folder, so the token travels with every request.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

const BASE = location.pathname.replace(/[^/]*$/, '');

export function apiUrl(endpoint, params) {
  const usp = params instanceof URLSearchParams ? params : new URLSearchParams();
  if (!(params instanceof URLSearchParams) && params) {
    for (const [k, v] of params) if (v !== undefined && v !== null) usp.append(k, String(v));
  }
  const qs = usp.toString();
  return BASE + 'api/' + endpoint + (qs ? '?' + qs : '');
}

// GET api/ENDPOINT with params (an array of [key, value] pairs or URLSearchParams).
// Resolves with the JSON, rejects with an ApiError holding the server's one-line error.
export async function api(endpoint, params, opts = {}) {
  let res;
  try {
    res = await fetch(apiUrl(endpoint, params), { signal: opts.signal, cache: 'no-store' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(`${endpoint}: the server does not answer (${e.message})`, 0);
  }
  const text = await res.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    throw new ApiError(`${endpoint}: bad JSON from the server (HTTP ${res.status}): ${e.message}`, res.status);
  }
  if (!res.ok) {
    const msg = body && body.error ? body.error : `HTTP ${res.status}`;
    throw new ApiError(`${endpoint}: ${msg}`, res.status);
  }
  return body;
}

export function isAbort(e) {
  return e && e.name === 'AbortError';
}
