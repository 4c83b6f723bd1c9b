import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationSeverity, validate } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';

// The Dockerfile linted (dockerfile-utils, the Docker language server's validator: hadolint is
// not installable from the registries here), every rule an error, then the image's own rules.
const ROOT = join(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#'));

describe('the Dockerfile', () => {
  it('has nothing the linter reports, with every rule an error', () => {
    const error = ValidationSeverity.ERROR;
    const settings = {
      deprecatedMaintainer: error,
      directiveCasing: error,
      emptyContinuationLine: error,
      instructionCasing: error,
      instructionCmdMultiple: error,
      instructionEntrypointMultiple: error,
      instructionHealthcheckMultiple: error,
      instructionJSONInSingleQuotes: error,
      instructionWorkdirRelative: error,
    };
    expect(validate(dockerfile, settings).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('is multi-stage on Node 24, installs production packages only, and runs as a user other than root', () => {
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage).toMatch(/^FROM node:24[-.\w]* AS \w+$/);
    expect(instructions.filter((line) => line.startsWith('RUN npm ci'))).toEqual([expect.stringContaining('--omit=dev')]);
    const user = instructions.findLastIndex((line) => line.startsWith('USER '));
    expect(instructions[user]).not.toMatch(/USER (root|0)\b/);
    expect(user).toBeLessThan(instructions.findIndex((line) => line.startsWith('CMD ')));
    expect(instructions.at(-1)).toBe('CMD ["node", "src/server/main.ts"]');
  });

  it('is pinned to a Node release with stable type stripping (24.12 or later), the one package.json runs the tests on', () => {
    const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const tested = packageJson.devDependencies['node'];
    expect(tested).toMatch(/^\d+\.\d+\.\d+$/);
    const images = instructions.filter((line) => line.startsWith('FROM ')).map((line) => /^FROM node:([^\s]+) AS \w+$/.exec(line)?.[1]);
    for (const image of images) {
      // A release (24.21.0-bookworm-slim) or a digest (…@sha256:…), never a floating "24" or "lts".
      const version = /^(\d+\.\d+\.\d+)-[\w.-]+(@sha256:[0-9a-f]{64})?$/.exec(image ?? '')?.[1];
      expect(version, `FROM node:${image}`).toBe(tested);
      const [major, minor] = version!.split('.').map(Number);
      expect(major).toBe(24);
      expect(minor).toBeGreaterThanOrEqual(12);
    }
  });

  it('copies named folders only, never the whole context, tests, stand-ins or scripts', () => {
    const copied = instructions
      .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(copied).not.toContain('.');
    expect(copied.filter((path) => /^(tests|stand-ins|scripts|dist|node_modules)\b/.test(path))).toEqual([]);
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8');
    expect(ignore).toMatch(/^\*$/m);
    expect(ignore).toMatch(/^\*\*\/\*\.test\.ts$/m);
  });
});
