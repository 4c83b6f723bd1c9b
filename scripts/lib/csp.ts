import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { htmlFiles } from './html-files.ts';

/**
 * The Content-Security-Policy of firebase.json, the deployment's hosting configuration.
 * Scripts and styles that Astro writes inline (the theme script, island loaders, the island
 * style) are allowed by their sha256 hash, never by 'unsafe-inline'.
 */
export const FIREBASE_CONFIG = 'firebase.json';

export interface HeaderRule {
  source: string;
  headers: { key: string; value: string }[];
}

export interface FirebaseConfig {
  hosting: { headers: HeaderRule[] };
  emulators: { auth: { host: string; port: number }; hosting: { host: string; port: number } };
}

export function readFirebaseConfig(path = FIREBASE_CONFIG): FirebaseConfig {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function cspHeader(config: FirebaseConfig): { key: string; value: string } {
  const header = config.hosting.headers.flatMap((rule) => rule.headers).find((h) => h.key === 'Content-Security-Policy');
  if (!header) throw new Error(`${FIREBASE_CONFIG} sends no Content-Security-Policy`);
  return header;
}

/** The policy firebase.json sends with every response. */
export const contentSecurityPolicy = (config: FirebaseConfig = readFirebaseConfig()) => cspHeader(config).value;

/** A policy as directive name -> sources: "script-src 'self' x" -> { 'script-src': ["'self'", 'x'] }. */
export function parsePolicy(policy: string): Map<string, string[]> {
  const directives = policy.split(';').map((d) => d.trim().split(/\s+/)).filter((parts) => parts[0]);
  return new Map(directives.map(([name, ...sources]) => [name!, sources]));
}

export const serializePolicy = (directives: Map<string, string[]>) =>
  [...directives].map(([name, sources]) => [name, ...sources].join(' ')).join('; ');

/** Adds sources to some directives of a policy. */
export function addSources(policy: string, additions: Record<string, string[]>): string {
  const directives = parsePolicy(policy);
  for (const [name, sources] of Object.entries(additions)) directives.set(name, [...(directives.get(name) ?? []), ...sources]);
  return serializePolicy(directives);
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The hashes of the inline scripts a page runs (JSON-LD is data, not script) and of its inline styles. */
export function inlineHashes(html: string): { scripts: string[]; styles: string[] } {
  const scripts = [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([\s\S]*?)<\/script>/g)]
    .filter(([, attributes]) => !/type="application\/ld\+json"/.test(attributes!))
    .map(([, , body]) => sha256(body!));
  const styles = [...html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)].map(([, body]) => sha256(body!));
  return { scripts, styles };
}

/** Every distinct inline script and style hash of a built site. */
export function siteInlineHashes(dist: string): { scripts: string[]; styles: string[] } {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  for (const file of htmlFiles(dist)) {
    const hashes = inlineHashes(readFileSync(file, 'utf8'));
    hashes.scripts.forEach((hash) => scripts.add(hash));
    hashes.styles.forEach((hash) => styles.add(hash));
  }
  return { scripts: [...scripts].sort(), styles: [...styles].sort() };
}

/** Rewrites firebase.json's script-src and style-src hashes to exactly those of a build. */
export function updatePolicyHashes(dist: string, path = FIREBASE_CONFIG): FirebaseConfig {
  const config = readFirebaseConfig(path);
  const header = cspHeader(config);
  const directives = parsePolicy(header.value);
  const hashes = siteInlineHashes(dist);
  for (const [name, wanted] of [['script-src', hashes.scripts], ['style-src', hashes.styles]] as const) {
    const kept = (directives.get(name) ?? []).filter((source) => !source.startsWith("'sha256-"));
    directives.set(name, [...kept.slice(0, 1), ...wanted, ...kept.slice(1)]);
  }
  header.value = serializePolicy(directives);
  writeFileSync(path, JSON.stringify(config, null, 2) + '\n');
  return config;
}
