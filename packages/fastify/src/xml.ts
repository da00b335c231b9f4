import { DomainError } from '@vellum/core';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { tooDeep, xmlNestsDeeperThan } from './body-limits.ts';

const parser = new XMLParser({ ignoreAttributes: true, parseTagValue: false, trimValues: true, processEntities: true, ignoreDeclaration: true });

/**
 * Reads a flat XML document (a root element whose children are text fields) into an object, for
 * endpoints that also take `application/xml` (docs/decisions.md "Custom domains"). DTDs are refused outright, so
 * no entity tricks reach the parser.
 */
export function parseFlatXml(text: string): Record<string, string> {
  const bad = (why: string) => new DomainError('BadRequest', `Malformed XML: ${why}`, { details: [{ msg: why, param: 'body', location: 'body' }] });
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw bad('document type declarations are not accepted');
  // Before the validator and parser, which recurse over the elements.
  if (xmlNestsDeeperThan(text)) throw tooDeep('XML');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw bad(valid.err.msg);
  const doc = parser.parse(text) as Record<string, unknown>;
  const roots = Object.keys(doc);
  if (roots.length !== 1) throw bad('expected exactly one root element');
  const root = doc[roots[0] as string];
  if (root === '' || root === undefined) return {};
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw bad('the root element must contain field elements');
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(root)) {
    if (typeof value !== 'string') throw bad(`<${key}> must appear once and hold text`);
    out[key] = value;
  }
  return out;
}
