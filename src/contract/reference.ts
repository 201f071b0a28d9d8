// The reference's own call: the OpenAPI document of every /v1 operation.
import { z } from '@hono/zod-openapi';
import { operationsOf } from './common.ts';

export const getOpenApi = operationsOf({ tag: 'Reference', access: 'public' })('GET /v1/openapi.json', {
  summary: 'This document',
  description:
    'The OpenAPI 3.1 document of every /v1 call, made from the schemas the server validates with. The page /docs/api ' +
    'shows it with code samples.',
  success: [
    {
      status: 200,
      description: 'The OpenAPI document.',
      schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
    },
  ],
});

export const referenceOperations = [getOpenApi];
