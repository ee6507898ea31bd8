// Reading a zip in tests (the evidence bundle, API.md §24.3): every file by name, in the zip's order.
import { openPromise } from 'yauzl';

export async function unzip(path: string): Promise<Map<string, Buffer>> {
  const zip = await openPromise(path, { lazyEntries: true });
  const files = new Map<string, Buffer>();
  for await (const e of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
    files.set(e.fileName, Buffer.concat(chunks));
  }
  zip.close();
  return files;
}
