// What container/ promises its users, read from the files themselves (the image is built and run
// by `npm run test:image`, test/image/): the Containerfile's user, init, health check and
// entry point; compose.yaml's two services, read-only root and Redis URL; and the README's
// `docker run` naming the image build.sh tags.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO } from './packed.ts';

const read = (file: string): string => readFileSync(path.join(REPO, file), 'utf8');
const VERSION = (JSON.parse(read('package.json')) as { version: string }).version;

describe('container/', () => {
  it('the Containerfile runs the server as a non-root user under tini, with a health check', () => {
    const file = read('container/Containerfile');
    expect(file).toMatch(/^FROM \$\{BASE\}$/m);
    expect(file).toMatch(/^ARG BASE=docker\.io\/library\/debian:bookworm-slim$/m);
    expect(file).toMatch(/^USER 10001:10001$/m);
    expect(file).toMatch(/^HEALTHCHECK .*\n\s+CMD \["\/usr\/local\/bin\/node", "-e", ".*\/health/m);
    expect(file).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--", "\/usr\/local\/bin\/node"/m);
  });

  it('compose.yaml runs the image build.sh tags beside Redis, read-only', () => {
    const compose = parse(read('container/compose.yaml')) as {
      services: Record<string, { image: string; read_only?: boolean; environment?: Record<string, string> }>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['redis', 'tai-interactions']);
    const app = compose.services['tai-interactions']!;
    expect(app.image).toBe(`localhost/tai-interactions:${VERSION}`);
    expect(app.read_only).toBe(true);
    expect(app.environment?.INTERACTIONS_REDIS_URL).toBe('redis://redis:6379');
    expect(read('container/build.sh')).toContain('IMAGE=localhost/tai-interactions:$VERSION');
  });

  it("the README's docker run names the same image", () => {
    expect(read('container/README.md')).toContain(`localhost/tai-interactions:${VERSION} `.trimEnd());
  });
});
