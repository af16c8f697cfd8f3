import {
  ACTION_TYPES,
  AI_QUERY_STATUSES,
  AUTH_MODES,
  COLOR_SCHEMES,
  DOWNLOAD_FORMATS,
  DOWNLOAD_TARGETS,
  EVENT_TYPES,
  SOURCE,
  SURFACES,
} from './constants.js';
import type {
  ActionPayloadMap,
  ActionType,
  AnyActionEnvelope,
  AnyEventDetail,
  AnyEventEnvelope,
  EventEnvelope,
  EventPayloadMap,
  EventRejection,
  EventType,
  Surface,
  Validated,
} from './types.js';
import { UNSAFE_CHARS } from './rules.js';

// What a field may hold: a string, a finite number, a boolean, any value, or one of a list of strings. Each
// kind is named by the words a refusal uses for it.
const STRING = 'a string';
const NUMBER = 'a finite number';
const BOOLEAN = 'a boolean';
// Whatever structured clone delivered (a Date, a Map, a Blob, any depth): the spec gives the drilldown value
// as "any type", and the listener receives it as the browser made it. Prototype keys in it are data: the
// clone made them own properties, and nothing merges them anywhere.
const ANY = 'any value';
type Kind = typeof STRING | typeof NUMBER | typeof BOOLEAN | typeof ANY | readonly string[];

// Whether a field must be there: optional fields may be absent (or null, which counts as absent).
const OPTIONAL = 0;
const REQUIRED = 1;
const REQUIRED_OR_NULL = 2;
type Presence = typeof OPTIONAL | typeof REQUIRED | typeof REQUIRED_OR_NULL;
type FieldRule = readonly [Kind, Presence?];

/** The payload fields of docs/protocol.md, "Events", one line per field. Fields not listed here are dropped. */
const EVENT_FIELDS: Record<EventType, Record<string, FieldRule>> = {
  'svc:event:ready': {
    embedTenant: [STRING, REQUIRED_OR_NULL],
    deploymentId: [NUMBER, REQUIRED_OR_NULL],
    mode: [AUTH_MODES, REQUIRED],
    surface: [SURFACES, REQUIRED],
    publicId: [STRING],
  },
  'svc:event:view': { surface: [SURFACES, REQUIRED], path: [STRING, REQUIRED], publicId: [STRING], title: [STRING] },
  'svc:event:navigate': { path: [STRING, REQUIRED], previousPath: [STRING] },
  'svc:event:dashboard-loaded': { publicId: [STRING], widgetCount: [NUMBER], loadDurationMs: [NUMBER] },
  'svc:event:download': {
    format: [DOWNLOAD_FORMATS, REQUIRED],
    target: [DOWNLOAD_TARGETS, REQUIRED],
    widgetId: [STRING],
    title: [STRING],
    rowCount: [NUMBER],
  },
  'svc:event:drilldown': { member: [STRING, REQUIRED], value: [ANY], widgetId: [STRING] },
  'svc:event:ai-query': {
    query: [STRING, REQUIRED],
    status: [AI_QUERY_STATUSES, REQUIRED],
    chatId: [STRING],
    agentId: [STRING],
  },
  'svc:event:error': { message: [STRING, REQUIRED], name: [STRING], context: [STRING], fatal: [BOOLEAN] },
};

// The same table as a list of [name, kind, presence] per type: a loop over an array is faster than a
// `for...in` with a lookup per field, on every message. Marked pure: a bundle that never validates an event (the
// svc-embed command's) leaves the table out instead of building it at every start.
const EVENT_FIELD_LISTS = /* @__PURE__ */ Object.fromEntries(
  /* @__PURE__ */ Object.entries(EVENT_FIELDS).map(([type, rules]) => [
    type,
    Object.entries(rules).map(([name, [kind, presence = OPTIONAL]]) => [name, kind, presence] as const),
  ]),
);

const has = (o: object, key: string) => Object.hasOwn(o, key);
const oneOf = (values: readonly string[]) => `one of ${values.join(', ')}`;

/**
 * A plain object: not null, not an array, Map, Date or boxed primitive, not a class instance. Its
 * prototype is `null` or an `Object.prototype`, of any realm: data cloned into another window (an
 * element moved into a pop-out document) has that window's `Object.prototype`.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function matches(value: unknown, kind: Kind): boolean {
  return kind === STRING
    ? typeof value === 'string'
    : kind === NUMBER
      ? Number.isFinite(value)
      : kind === BOOLEAN
        ? typeof value === 'boolean'
        : kind === ANY
          ? true
          : typeof value === 'string' && kind.includes(value);
}

function describe(kind: Kind): string {
  return typeof kind === 'string' ? kind : oneOf(kind);
}

/**
 * Copies the spec's fields of an event payload into a fresh object, or says which rule failed.
 * Only own properties are read; unknown fields are dropped; an optional field sent as null is absent.
 */
function cleanPayload(type: EventType, payload: Record<string, unknown>): Record<string, unknown> | string {
  const out: Record<string, unknown> = {};
  for (const [name, kind, presence] of EVENT_FIELD_LISTS[type]) {
    const value = has(payload, name) ? payload[name] : undefined;
    if (value === undefined || (value === null && presence !== REQUIRED_OR_NULL)) {
      if (presence)
        return `payload.${name}: required, ${describe(kind)}${presence === REQUIRED_OR_NULL ? ' or null' : ''}`;
      continue;
    }
    if (value !== null && !matches(value, kind)) return `payload.${name}: must be ${describe(kind)}`;
    out[name] = value;
  }
  return out;
}

const refuse = <T extends string>(reason: string, type?: T) => ({
  ok: false as const,
  reason,
  ...(type ? { type } : {}),
});

/** Checks the envelope fields shared by events and actions; the reason never echoes message data. */
function checkEnvelope(data: unknown, direction: 'event' | 'action', types: readonly string[]): string | undefined {
  if (!isPlainObject(data)) return 'message: must be a plain object';
  if (data.source !== SOURCE || !has(data, 'source')) return `source: must be '${SOURCE}'`;
  if (!has(data, 'direction') || data.direction !== direction) return `direction: must be '${direction}'`;
  if (!has(data, 'type') || !types.includes(data.type as string)) return `type: must be a known ${direction} type`;
  if (!has(data, 'timestamp') || !Number.isFinite(data.timestamp)) return 'timestamp: must be a finite number';
  if (!has(data, 'payload') || !isPlainObject(data.payload)) return 'payload: must be a plain object';
  return undefined;
}

/**
 * Reads an incoming event (embed -> host) against docs/protocol.md, "The envelope" and "Events", into
 * `{type, surface, timestamp, payload}`, whose payload is a fresh object holding only the spec's fields, or into
 * `{reason, type?}` saying why it is refused. The reason names the field and the rule and never echoes message
 * data; `type` is there only when it is a known event type. Never throws.
 */
export function readEvent(data: unknown): AnyEventDetail | EventRejection {
  let type: EventType | undefined;
  let reason: string | undefined;
  try {
    const d = data as Record<string, unknown>;
    if (isPlainObject(d) && typeof d.type === 'string' && has(d, 'type') && has(EVENT_FIELDS, d.type))
      type = d.type as EventType;
    reason =
      checkEnvelope(d, 'event', EVENT_TYPES) ??
      (has(d, 'surface') && matches(d.surface, SURFACES) ? undefined : `surface: must be ${oneOf(SURFACES)}`);
    if (!reason) {
      const payload = cleanPayload(type!, d.payload as Record<string, unknown>);
      if (typeof payload !== 'string')
        return { type, surface: d.surface, timestamp: d.timestamp, payload } as AnyEventDetail;
      reason = payload;
    }
  } catch {
    // Only hostile objects get here (a getter or proxy trap that throws): a structured clone never does.
    reason = 'message: must be a plain object';
  }
  return type ? { reason, type } : { reason };
}

/**
 * Validates an incoming event (embed -> host) against docs/protocol.md, "The envelope" and "Events". On success
 * `message` is a fresh envelope whose payload holds only the spec's fields. `type` is reported only when it is a
 * known event type, so a refusal never repeats attacker-chosen text.
 */
export function validateEvent(data: unknown): Validated<AnyEventEnvelope> {
  const read = readEvent(data);
  return 'reason' in read
    ? { ok: false, ...read }
    : { ok: true, message: { source: SOURCE, direction: 'event', ...read } as AnyEventEnvelope };
}

/**
 * Builds a valid event envelope (embed -> host), for the embed side; throws a TypeError naming the broken rule.
 * The payload must survive structured clone, as `postMessage` needs (a function, say, does not).
 */
export function buildEvent<T extends EventType>(
  type: T,
  surface: Surface,
  payload: EventPayloadMap[T],
): EventEnvelope<T> {
  const result = validateEvent({ source: SOURCE, direction: 'event', type, payload, timestamp: Date.now(), surface });
  if (!result.ok) throw new TypeError(`${type}: ${result.reason}`);
  try {
    structuredClone(result.message.payload);
  } catch {
    throw new TypeError(`${type}: payload: must be structured-cloneable (no functions, symbols or DOM nodes)`);
  }
  return result.message as EventEnvelope<T>;
}

// ---- Outgoing values: each check returns undefined when the value is valid, else the accepted form.

const FORBIDDEN_KEYS = ['__proto__', 'constructor', 'prototype'];

/** JSON-like data only (so structured clone and JSON agree): no functions, NaN, cycles or prototype keys. */
function dataProblem(value: unknown, depth = 0): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || Number.isFinite(value))
    return undefined;
  if (depth > 16) return 'nested too deep';
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value))
    return 'only strings, finite numbers, booleans, null, arrays and plain objects';
  for (const key of Object.keys(value as object)) {
    if (!isArray && FORBIDDEN_KEYS.includes(key)) return `no "${key}" key`;
    const problem = dataProblem((value as Record<string, unknown>)[key], depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/** `light`, `dark` or `auto`. */
export const colorSchemeProblem = (value: unknown) =>
  matches(value, COLOR_SCHEMES) ? undefined : `must be ${oneOf(COLOR_SCHEMES)}`;

/** A BCP 47 language tag such as `de`, `de-DE` or `zh-Hant-TW`, as `Intl.getCanonicalLocales` accepts it. */
export function localeProblem(value: unknown): string | undefined {
  try {
    if (typeof value === 'string' && Intl.getCanonicalLocales(value).length === 1) return undefined;
  } catch {
    // RangeError: not a well-formed tag.
  }
  return 'must be a BCP 47 tag such as "en" or "pt-BR"';
}

/** A plain object of JSON-like data, without `__proto__`, `constructor` or `prototype` keys. */
export function themeProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'must be a plain object such as {"primaryColor":"#4f46e5"}';
  const problem = dataProblem(value);
  return problem && `must be plain JSON-like data: ${problem}`;
}

// A "." or ".." segment, plain or percent-encoded: the URL parser resolves both, so "/a/%2e%2e" is "/".
const DOT_SEGMENT = /(^|\/)(\.|%2e){1,2}(\/|[?#]|$)/i;

/**
 * A path inside the embed: one leading `/`; no scheme, `//`, backslash, `.`/`..` segment, control or
 * bidirectional character.
 */
export function pathProblem(value: unknown): string | undefined {
  return typeof value === 'string' &&
    /^\/(?![/\\])[^\\]*$/.test(value) &&
    !value.includes('//') &&
    !UNSAFE_CHARS.test(value) &&
    !DOT_SEGMENT.test(value.replace(/[?#].*/s, ''))
    ? undefined
    : 'must start with a single "/" and hold no scheme, "//", backslash, "." or ".." segment, control or bidirectional character';
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const FILTER = new RegExp(`^f_(${NAME})\\.(${NAME})=(.*)$`, 's');
const FILTER_FORM =
  'must be f_<semantic_view>.<dimension>=<JSON>, a JSON object with a "value" key, &, #, + and % percent-encoded (filterParam() builds it)';
// In the URL-query form these end the parameter, start a fragment, mean a space or start an escape.
const QUERY_SPECIALS = /[%&#+]/g;

/** A parsed filter parameter. */
export interface ParsedFilter {
  view: string;
  dimension: string;
  value: unknown;
}

/**
 * Parses `f_<semantic_view>.<dimension>=<JSON>`; the JSON must be an object with an own `value` key.
 * The JSON text is in URL-query form: a raw `&`, `#` or `+` is refused (it would end the parameter,
 * and `...&allowExport=true` would become a parameter of its own), and percent escapes are decoded.
 * Returns undefined for anything else.
 */
export function parseFilterParam(param: unknown): ParsedFilter | undefined {
  const m = typeof param === 'string' ? FILTER.exec(param) : null;
  if (!m || /[&#+]/.test(m[3])) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(decodeURIComponent(m[3]));
  } catch {
    return undefined;
  }
  if (!isPlainObject(json) || !has(json, 'value') || dataProblem(json)) return undefined;
  return { view: m[1], dimension: m[2], value: json.value };
}

/** See {@link parseFilterParam}. */
export const filterProblem = (value: unknown) => (parseFilterParam(value) ? undefined : FILTER_FORM);

/**
 * Builds a filter parameter `f_<view>.<dimension>={"value":<value>}` for the `filter` attribute or
 * `svc:action:set-filter`, with `&`, `#`, `+` and `%` in the JSON text percent-encoded. Throws a TypeError for names that are not identifiers or a value that is not JSON data.
 */
export function filterParam(view: string, dimension: string, value: unknown): string {
  const name = new RegExp(`^${NAME}$`);
  if (!name.test(view) || !name.test(dimension)) {
    throw new TypeError(
      'filterParam(view, dimension, value): view and dimension must be identifiers ([A-Za-z_][A-Za-z0-9_]*)',
    );
  }
  const problem = value === undefined ? 'a value is required' : dataProblem(value);
  if (problem) throw new TypeError(`filterParam(view, dimension, value): value must be JSON data (${problem})`);
  return `f_${view}.${dimension}=${JSON.stringify({ value }).replace(QUERY_SPECIALS, encodeURIComponent)}`;
}

/** Each action's payload check: undefined when valid, else what is wrong. */
const ACTION_CHECKS: Record<ActionType, (payload: Record<string, unknown>) => string | undefined> = {
  'svc:action:set-color-scheme': (p) => prefix('scheme', colorSchemeProblem(p.scheme)),
  'svc:action:set-theme': themeProblem,
  'svc:action:set-locale': (p) => prefix('locale', localeProblem(p.locale)),
  'svc:action:set-filter': (p) => prefix('filterUrlParameter', filterProblem(p.filterUrlParameter)),
  'svc:action:navigate': (p) => prefix('path', pathProblem(p.path)),
  'svc:action:refresh': () => undefined,
};

function prefix(field: string, problem: string | undefined) {
  return problem && `payload.${field}: ${problem}`;
}

/** Reads only own properties into a fresh payload (the theme is copied deeply: it is checked JSON data). */
function ownPayload(type: ActionType, p: Record<string, unknown>): Record<string, unknown> {
  if (type === 'svc:action:set-theme') return JSON.parse(JSON.stringify(p)) as Record<string, unknown>;
  const key = {
    'svc:action:set-color-scheme': 'scheme',
    'svc:action:set-locale': 'locale',
    'svc:action:set-filter': 'filterUrlParameter',
    'svc:action:navigate': 'path',
  }[type as string];
  return key ? { [key]: has(p, key) ? p[key] : undefined } : {};
}

/**
 * Validates an incoming action (host -> embed), for the embed side. Actions never carry `surface`.
 * On success `message` is a fresh envelope.
 */
export function validateAction(data: unknown): Validated<AnyActionEnvelope> {
  const problem = checkEnvelope(data, 'action', ACTION_TYPES);
  if (problem) return refuse(problem);
  const d = data as Record<string, unknown>;
  const type = d.type as ActionType;
  if (has(d, 'surface')) return refuse('surface: actions carry no surface', type);
  const payload = ownPayload(type, d.payload as Record<string, unknown>);
  const payloadProblem = ACTION_CHECKS[type](payload);
  if (payloadProblem) return refuse(payloadProblem, type);
  return {
    ok: true,
    message: { source: SOURCE, direction: 'action', type, payload, timestamp: d.timestamp } as AnyActionEnvelope,
  };
}

/**
 * Builds an action envelope (host -> embed) after checking its payload; throws a TypeError naming the
 * accepted form. The result is what `postMessage` sends, targeted at the tenant origin.
 */
export function buildAction<T extends ActionType>(type: T, payload: ActionPayloadMap[T]) {
  const check = ACTION_CHECKS[type];
  const problem = check ? check(payload) : `type: must be ${oneOf(ACTION_TYPES)}`;
  if (problem) throw new TypeError(`${type}: ${problem}`);
  return { source: SOURCE, direction: 'action', type, payload, timestamp: Date.now() } as const;
}
