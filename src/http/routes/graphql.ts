// /graphql and /graphql/stream are served by Yoga; Fastify only hands requests over. Bodies
// are read as text under the GraphQL cap (media and schemas make asks large), so Yoga
// parses them exactly as it would standing alone.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { nodeBodyOf } from '../../graphql/shared-results.ts';
import { useTextBodies } from '../json-body.ts';

/** Content types of a response that carries one whole result (JSON, GraphiQL's page). */
const SINGLE_RESULT = /^(application\/(graphql-response\+)?json|text\/html)\b/i;

export interface GraphQLHandler {
  handleNodeRequestAndResponse(
    req: FastifyRequest,
    reply: FastifyReply,
    ctx: { req: FastifyRequest; reply: FastifyReply },
  ): Response | Promise<Response>;
}

export interface GraphQLRouteOptions {
  yoga: GraphQLHandler;
  maxBodyBytes: number;
}

export async function graphqlRoutes(app: FastifyInstance, o: GraphQLRouteOptions): Promise<void> {
  useTextBodies(app, o.maxBodyBytes);
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const response = await o.yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
    response.headers.forEach((value, key) => {
      reply.header(key, value);
    });
    reply.status(response.status);
    // A shared subscription's event stream is a Node stream already: piped as it is. A single
    // result is one string: Fastify writes it at once, where a web stream would be pumped chunk
    // by chunk over several ticks. Other event streams and multipart stay web streams.
    const node = nodeBodyOf(response);
    if (node) return reply.send(node);
    const single = SINGLE_RESULT.test(response.headers.get('content-type') ?? '');
    return reply.send(single ? await response.text() : response.body);
  };
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;
  app.route({ url: '/graphql', method: [...methods], handler });
  app.route({ url: '/graphql/stream', method: [...methods], handler });
}
