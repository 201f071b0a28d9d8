// The media-type rule every contract operation with a request body applies before reading it
// (src/server/http/media-type.ts): the essence of Content-Type against the listed types, and a body
// without a Content-Type refused.
import { describe, expect, it } from 'vitest';
import { mediaTypeOf, unsupportedMediaType } from '../../src/server/http/media-type.ts';

const JSON_ONLY = ['application/json'];
const FORM = ['multipart/form-data'];

describe('mediaTypeOf', () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['Application/JSON;charset=UTF-8', 'application/json'],
    ['  multipart/form-data ; boundary=----x', 'multipart/form-data'],
    ['text/plain;charset=UTF-8', 'text/plain'],
    ['application/merge-patch+json', 'application/merge-patch+json'],
    ['json', undefined],
    ['', undefined],
    ['application/json extra', undefined],
  ])('%j → %j', (header, essence) => {
    expect(mediaTypeOf(header)).toBe(essence);
  });
});

describe('unsupportedMediaType', () => {
  it.each([
    ['a listed type', { contentType: 'application/json', contentLength: '12' }, JSON_ONLY],
    ['a listed type with parameters', { contentType: 'application/json; charset=utf-8' }, JSON_ONLY],
    ['a listed type in capitals', { contentType: 'APPLICATION/JSON' }, JSON_ONLY],
    ['a multipart form with its boundary', { contentType: 'multipart/form-data; boundary=--b' }, FORM],
    ['no Content-Type and no body', {}, JSON_ONLY],
    ['no Content-Type and an empty body', { contentLength: '0' }, JSON_ONLY],
    ['a call that takes no body', { contentType: 'text/plain', contentLength: '3' }, []],
  ])('lets through %s', (_, headers, accepted) => {
    expect(unsupportedMediaType(headers, accepted)).toBeUndefined();
  });

  it.each([
    ['JSON labelled text/plain', { contentType: 'text/plain;charset=UTF-8', contentLength: '2' }, JSON_ONLY],
    ['a form body to a JSON call', { contentType: 'application/x-www-form-urlencoded' }, JSON_ONLY],
    ['a related JSON type not listed', { contentType: 'application/merge-patch+json' }, JSON_ONLY],
    ['JSON to a multipart call', { contentType: 'application/json', contentLength: '2' }, FORM],
    ['a Content-Type that is not a media type', { contentType: 'json' }, JSON_ONLY],
    ['a body of a stated length without a Content-Type', { contentLength: '17' }, JSON_ONLY],
    ['a chunked body without a Content-Type', { transferEncoding: 'chunked' }, JSON_ONLY],
    [
      'an empty body labelled with a type the call does not list',
      { contentType: 'text/plain', contentLength: '0' },
      FORM,
    ],
  ])('refuses %s with 415 unsupported_media_type naming what the call takes', (_, headers, accepted) => {
    const refused = unsupportedMediaType(headers, accepted);
    expect(refused?.code).toBe('unsupported_media_type');
    expect(refused?.message).toContain(accepted[0]);
  });
});
