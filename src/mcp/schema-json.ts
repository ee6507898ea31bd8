// The tools' schemas as JSON Schema, converted once per process. The MCP server is built anew
// for every request (the SDK serves each HTTP request with a fresh instance), and each instance
// converts a tool's zod schema again the first time it needs it: the output schema on every
// `tools/call` result, the input schema on every 2026-07-28 call. That conversion walks the
// whole schema and was the largest single piece of the SDK's own work per call in the profile
// (bench/README.md, "MCP"). The schemas never change, so the JSON is kept; the SDK only reads it.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';

type Converter = StandardSchemaWithJSON['~standard']['jsonSchema'];

function memoized(convert: Converter['input']): Converter['input'] {
  const kept = new Map<string, Record<string, unknown>>();
  return (options) => {
    // Anything beyond the target (libraryOptions) is not remembered: convert as asked.
    if (options.libraryOptions !== undefined) return convert(options);
    let json = kept.get(options.target);
    if (json === undefined) {
      json = convert(options);
      kept.set(options.target, json);
    }
    return json;
  };
}

/** The same converter, remembering each target's result. */
export function convertedOnce(json: Converter): Converter {
  return { input: memoized(json.input), output: memoized(json.output) };
}

/** The schema with its JSON Schema conversion kept (validation unchanged). */
export function withJsonSchemaOnce<S extends StandardSchemaWithJSON>(schema: S): S {
  const std = schema['~standard'];
  return { '~standard': { ...std, jsonSchema: convertedOnce(std.jsonSchema) } } as unknown as S;
}
