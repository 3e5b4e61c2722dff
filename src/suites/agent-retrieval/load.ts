import { InputError, preview } from '../../errors.js';
import {
  documentSchemaV1_0,
  documentSchemaV1_x,
  SCHEMA_MAJOR,
  type EventDocument,
  type LoadedDocument,
} from './contract.js';
import { errorAt, readJsonFile, validateJson, type JsonText } from '../../io/json-document.js';

const WHAT = 'a retrieval-event document (schema 1.x)';

/** Reads event documents; every file must be one valid document. */
export function loadDocuments(files: readonly string[]): LoadedDocument[] {
  return files.map((file) => ({ doc: parseDocumentJson(readJsonFile(file, WHAT)), file }));
}

/** Checks `schema_version` first, so a document of another major version gets that error, not a field's. */
export function parseDocumentJson(json: JsonText): EventDocument {
  const value = json.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(
      { file: json.file, line: 1 },
      `expected a JSON object (${WHAT}), found ${preview(value)}`,
    );
  }
  const version = (value as Record<string, unknown>).schema_version;
  const m = typeof version === 'string' ? /^(\d+)\.(\d+)$/.exec(version) : null;
  if (!m) {
    throw errorAt(
      json,
      version === undefined ? [] : ['schema_version'],
      `field "schema_version": found ${preview(version)}; expected a version string such as "1.0"`,
    );
  }
  if (Number(m[1]) !== SCHEMA_MAJOR) {
    throw errorAt(
      json,
      ['schema_version'],
      `schema_version ${JSON.stringify(version)} has unknown major version ${m[1]}; expected 1.x (groundgate reads retrieval-event schema 1.0 and its minor revisions)`,
    );
  }
  const schema = Number(m[2]) === 0 ? documentSchemaV1_0 : documentSchemaV1_x;
  return validateJson(schema, json, WHAT);
}
