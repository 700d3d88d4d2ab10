// A Delta log validator written from PROTOCOL.md alone (sharing nothing with src/table): it
// checks every commit, every checkpoint and _last_checkpoint of a table against the spec's MUSTs
// and returns the table as its own replay sees it, for the readers of read_tables.js.
'use strict';

const fs = require('fs');
const path = require('path');

const ACTIONS = new Set(['add', 'remove', 'metaData', 'protocol', 'txn', 'commitInfo', 'cdc', 'domainMetadata',
  'checkpointMetadata', 'sidecar']);
const PRIMITIVES = new Set(['string', 'long', 'integer', 'short', 'byte', 'float', 'double', 'boolean', 'binary',
  'date', 'timestamp', 'timestamp_ntz']);
const DECIMAL = /^decimal\((\d+),\s*(\d+)\)$/;
// Partition value forms (PROTOCOL.md, "Partition Value Serialization").
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP_PLAIN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;
const TIMESTAMP_ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const INTEGER = /^-?\d+$/;
const NUMBER = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$|^(NaN|-?Infinity)$/;
const INT_RANGE = { byte: 2n ** 7n, short: 2n ** 15n, integer: 2n ** 31n, long: 2n ** 63n };

class Findings {
  constructor(table) { this.table = table; this.errors = []; }
  must(condition, where, what) { if (!condition) this.errors.push(`${where}: ${what}`); return !!condition; }
}

const isLong = (v) => Number.isInteger(v) || typeof v === 'bigint';
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStringMap = (v) => isObject(v) && Object.values(v).every((x) => typeof x === 'string');

// ---- schema -------------------------------------------------------------------------------

function checkType(type, where, f, seen) {
  if (typeof type === 'string') {
    const decimal = DECIMAL.exec(type);
    if (decimal) {
      const [p, s] = [Number(decimal[1]), Number(decimal[2])];
      f.must(p >= 1 && p <= 38 && s <= p, where, `decimal(${p},${s}) is outside precision 1..38, scale <= precision`);
    } else {
      f.must(PRIMITIVES.has(type), where, `unknown primitive type ${type}`);
    }
    if (type === 'timestamp_ntz') seen.ntz = true;
    return;
  }
  if (!f.must(isObject(type), where, 'a type is neither a name nor an object')) return;
  if (type.type === 'struct') return checkStruct(type, where, f, seen);
  if (type.type === 'array') {
    f.must(typeof type.containsNull === 'boolean', where, 'array has no boolean containsNull');
    return checkType(type.elementType, `${where}[]`, f, seen);
  }
  if (type.type === 'map') {
    f.must(typeof type.valueContainsNull === 'boolean', where, 'map has no boolean valueContainsNull');
    checkType(type.keyType, `${where}.key`, f, seen);
    return checkType(type.valueType, `${where}.value`, f, seen);
  }
  f.must(false, where, `unknown complex type ${JSON.stringify(type.type)}`);
}

function checkStruct(struct, where, f, seen) {
  if (!f.must(Array.isArray(struct.fields), where, 'struct has no fields array')) return;
  const names = new Set();
  for (const field of struct.fields) {
    const at = `${where}.${field.name}`;
    f.must(typeof field.name === 'string', where, 'a field has no name');
    f.must(!names.has(field.name), at, 'field name appears twice');
    names.add(field.name);
    f.must(typeof field.nullable === 'boolean', at, 'field has no boolean nullable');
    f.must(isObject(field.metadata), at, 'field has no metadata object');
    if (isObject(field.metadata) && 'delta.invariants' in field.metadata) seen.invariants = true;
    checkType(field.type, at, f, seen);
  }
}

// ---- actions ------------------------------------------------------------------------------

function hasFeature(protocol, feature) {
  const listed = (list) => Array.isArray(list) && list.includes(feature);
  return listed(protocol.readerFeatures) || listed(protocol.writerFeatures);
}

function checkProtocol(p, where, f) {
  if (!f.must(Number.isInteger(p.minReaderVersion) && Number.isInteger(p.minWriterVersion), where,
    'protocol needs integer minReaderVersion and minWriterVersion')) return;
  f.must(p.minReaderVersion !== 3 || p.minWriterVersion === 7, where, 'reader version 3 needs writer version 7');
  f.must((p.minReaderVersion === 3) === Array.isArray(p.readerFeatures), where,
    'readerFeatures must exist exactly when minReaderVersion is 3');
  f.must((p.minWriterVersion === 7) === Array.isArray(p.writerFeatures), where,
    'writerFeatures must exist exactly when minWriterVersion is 7');
  for (const feature of p.readerFeatures || [])
    f.must((p.writerFeatures || []).includes(feature), where, `reader feature ${feature} is not in writerFeatures`);
}

// Column mapping at every depth: each struct field (in structs, lists and maps) has an id and a
// physical name; ids are unique in the table and at most delta.columnMapping.maxColumnId;
// physical names are unique among a struct's fields.
function checkNestedMapping(schema, configuration, where, f) {
  const ids = new Map();
  const maxId = Number(configuration['delta.columnMapping.maxColumnId']);
  const walk = (type, path) => {
    if (!isObject(type)) return;
    if (type.type === 'struct' && Array.isArray(type.fields)) {
      const names = new Set();
      for (const field of type.fields) {
        const md = isObject(field.metadata) ? field.metadata : {};
        const id = md['delta.columnMapping.id'];
        const physical = md['delta.columnMapping.physicalName'];
        const at = `${path}${field.name}`;
        if (f.must(Number.isInteger(id) && typeof physical === 'string', where,
          `field ${at} has no delta.columnMapping.id and physicalName under column mapping`)) {
          f.must(!ids.has(id), where, `field ${at} has id ${id}, as ${ids.get(id)} has`);
          ids.set(id, at);
          f.must(id <= maxId, where, `field ${at}'s id ${id} passes delta.columnMapping.maxColumnId ${maxId}`);
          f.must(!names.has(physical), where, `field ${at}'s physical name ${physical} is another field's`);
          names.add(physical);
        }
        walk(field.type, `${at}.`);
      }
    } else if (type.type === 'array') {
      walk(type.elementType, path);
    } else if (type.type === 'map') {
      walk(type.keyType, path);
      walk(type.valueType, path);
    }
  };
  walk(schema, '');
}

function checkMetadata(m, where, f) {
  f.must(typeof m.id === 'string' && m.id.length > 0, where, 'metaData.id must be a string');
  f.must(m.name == null || typeof m.name === 'string', where, 'metaData.name must be a string');
  f.must(m.description == null || typeof m.description === 'string', where, 'metaData.description must be a string');
  f.must(isObject(m.format) && typeof m.format.provider === 'string', where, 'metaData.format.provider missing');
  f.must(isObject(m.format) && (m.format.options == null || isStringMap(m.format.options)), where,
    'metaData.format.options must be a map of strings');
  f.must(Array.isArray(m.partitionColumns) && m.partitionColumns.every((c) => typeof c === 'string'), where,
    'metaData.partitionColumns must be an array of strings');
  f.must(isStringMap(m.configuration), where, 'metaData.configuration must be a map of strings');
  f.must(m.createdTime == null || isLong(m.createdTime), where, 'metaData.createdTime must be a long');
  let schema = null;
  try { schema = JSON.parse(m.schemaString); } catch (e) { f.must(false, where, `schemaString is not JSON (${e.message})`); }
  const seen = {};
  if (schema && f.must(schema.type === 'struct', where, 'schemaString is not a struct')) checkStruct(schema, 'schema', f, seen);
  // Under column mapping (PROTOCOL.md, "Column Mapping") every field has an id and a physical
  // name, and data files, partition values and statistics use the physical name ("stored").
  const mode = isObject(m.configuration) ? m.configuration['delta.columnMapping.mode'] : undefined;
  const mapped = mode === 'name' || mode === 'id';
  f.must(mode == null || ['none', 'name', 'id'].includes(mode), where, `delta.columnMapping.mode ${mode} is not none, name or id`);
  const fields = (schema && Array.isArray(schema.fields) ? schema.fields : []).map((x) => {
    const md = isObject(x.metadata) ? x.metadata : {};
    if (mapped) {
      f.must(typeof md['delta.columnMapping.physicalName'] === 'string' && Number.isInteger(md['delta.columnMapping.id']),
        where, `column ${x.name} has no delta.columnMapping.id and physicalName under column mapping`);
      f.must(Number(m.configuration['delta.columnMapping.maxColumnId']) >= md['delta.columnMapping.id'], where,
        `column ${x.name}'s id passes delta.columnMapping.maxColumnId`);
    }
    return { ...x, stored: mapped && typeof md['delta.columnMapping.physicalName'] === 'string' ? md['delta.columnMapping.physicalName'] : x.name };
  });
  if (mapped && schema) checkNestedMapping(schema, m.configuration, where, f);
  for (const c of m.partitionColumns || []) {
    const field = fields.find((x) => x.name === c);
    f.must(field, where, `partition column ${c} is not in the schema`);
    f.must(!field || typeof field.type === 'string', where, `partition column ${c} must have a primitive type`);
  }
  return { schema, fields, seen };
}

function checkFeatureRules(protocol, meta, where, f) {
  const config = meta.raw.configuration || {};
  const writer = protocol.minWriterVersion;
  const supports = (feature, legacyWriter) => (writer === 7 ? hasFeature(protocol, feature) : writer >= legacyWriter);
  if (meta.seen.ntz)
    f.must(hasFeature(protocol, 'timestampNtz') && (protocol.readerFeatures || []).includes('timestampNtz'), where,
      'the schema has timestamp_ntz but the protocol lacks the timestampNtz reader and writer feature');
  if (String(config['delta.appendOnly']).toLowerCase() === 'true')
    f.must(supports('appendOnly', 2), where, 'delta.appendOnly is set but the protocol lacks appendOnly');
  if (meta.seen.invariants) f.must(supports('invariants', 2), where, 'column invariants need writer 2 or invariants');
  if (Object.keys(config).some((k) => k.startsWith('delta.constraints.')))
    f.must(supports('checkConstraints', 3), where, 'CHECK constraints need writer 3 or checkConstraints');
  const mapping = config['delta.columnMapping.mode'];
  if (mapping && mapping !== 'none')
    f.must(writer === 7 ? hasFeature(protocol, 'columnMapping') : writer >= 5 && protocol.minReaderVersion >= 2,
      where, 'column mapping needs reader 2 / writer 5 or the columnMapping feature');
}

function checkPartitionValue(value, type, where, f) {
  if (value === null) return;
  if (!f.must(typeof value === 'string', where, 'a partition value must be a string or null')) return;
  const bad = (form) => f.must(false, where, `partition value ${JSON.stringify(value)} is not a ${form}`);
  if (type === 'date') { if (!DATE.test(value)) bad('date (YYYY-MM-DD)'); }
  else if (type === 'timestamp') {
    if (!TIMESTAMP_PLAIN.test(value) && !TIMESTAMP_ISO_UTC.test(value)) bad('timestamp');
  } else if (type === 'timestamp_ntz') { if (!TIMESTAMP_PLAIN.test(value)) bad('timestamp_ntz (no zone)'); }
  else if (type in INT_RANGE) {
    if (!INTEGER.test(value)) bad(type);
    else f.must(BigInt(value) >= -INT_RANGE[type] && BigInt(value) < INT_RANGE[type], where, `${value} overflows ${type}`);
  } else if (type === 'boolean') { if (value !== 'true' && value !== 'false') bad('boolean'); }
  else if (type === 'float' || type === 'double' || DECIMAL.test(type)) { if (!NUMBER.test(value)) bad('number'); }
}

// A stats value of `type`: numbers as JSON numbers (decimals may be exact text), dates and
// timestamps as strings (PROTOCOL.md, "Per-file Statistics").
function checkStatValue(value, type, where, f) {
  if (value === null) return;
  if (['long', 'integer', 'short', 'byte', 'float', 'double'].includes(type) || DECIMAL.test(type))
    f.must(typeof value === 'number', where, `stat ${JSON.stringify(value)} of a ${type} column is not a number`);
  else if (type === 'date') f.must(typeof value === 'string' && DATE.test(value), where, 'date stat is not YYYY-MM-DD');
  else if (type === 'timestamp' || type === 'timestamp_ntz')
    f.must(typeof value === 'string' && !Number.isNaN(Date.parse(value)), where, `timestamp stat ${value} unreadable`);
  else if (type === 'string') f.must(typeof value === 'string', where, 'string stat is not a string');
}

function checkStats(statsText, meta, where, f) {
  if (statsText == null) return null;
  let stats;
  try { stats = JSON.parse(statsText); } catch (e) { f.must(false, where, `stats are not JSON (${e.message})`); return null; }
  if (!f.must(isLong(stats.numRecords) && stats.numRecords >= 0, where, 'stats.numRecords must be a long >= 0'))
    return null;
  const dataFields = new Map(meta.fields.filter((x) => !meta.raw.partitionColumns.includes(x.name)).map((x) => [x.stored, x]));
  for (const kind of ['minValues', 'maxValues', 'nullCount']) {
    if (stats[kind] == null) continue;
    if (!f.must(isObject(stats[kind]), where, `stats.${kind} must be an object`)) continue;
    for (const [column, value] of Object.entries(stats[kind])) {
      const field = dataFields.get(column);
      if (!f.must(field, where, `stats.${kind} names ${column}, not a data column of the schema`)) continue;
      if (isObject(value)) continue;  // a struct's nested stats
      if (kind === 'nullCount')
        f.must(isLong(value) && value >= 0 && value <= stats.numRecords, where, `nullCount of ${column} out of range`);
      else checkStatValue(value, field.type, `${where} stats.${kind}.${column}`, f);
    }
  }
  return stats.numRecords;
}

// A relative path is a URI reference: percent-encoded, no scheme.
function checkPath(p, where, f) {
  if (!f.must(typeof p === 'string' && p.length > 0, where, 'file action has no path')) return null;
  f.must(!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(p) || /^[a-z]+:\//.test(p), where, `path ${p} reads as a URI scheme`);
  f.must(!/%(?![0-9A-Fa-f]{2})/.test(p) && !/[ "#<>\\^`{|}]/.test(p), where, `path ${p} is not URI-encoded`);
  try { return decodeURIComponent(p); } catch (e) { f.must(false, where, `path ${p} does not decode`); return null; }
}

// A file's identity in the log: its path and, when it has one, its deletion vector's
// (storageType, pathOrInlineDv, offset) (PROTOCOL.md, "Deletion Vector Descriptor").
function fileKey(decodedPath, dv) {
  if (dv == null) return decodedPath;
  return `${decodedPath}\n${dv.storageType}${dv.pathOrInlineDv}${dv.offset != null ? `@${dv.offset}` : ''}`;
}

const Z85 = /^[0-9a-zA-Z.\-:+=^!/*?&<>()[\]{}@%$#]*$/;

function checkDeletionVector(dv, protocol, where, f) {
  if (!f.must(hasFeature(protocol, 'deletionVectors') && (protocol.readerFeatures || []).includes('deletionVectors'),
    where, 'a deletion vector without the deletionVectors reader and writer feature')) return;
  if (!f.must(isObject(dv), where, 'deletionVector must be an object')) return;
  f.must(['u', 'i', 'p'].includes(dv.storageType), where, `deletionVector.storageType ${dv.storageType} is not u, i or p`);
  f.must(typeof dv.pathOrInlineDv === 'string', where, 'deletionVector.pathOrInlineDv must be a string');
  f.must(isLong(dv.sizeInBytes) && dv.sizeInBytes >= 0, where, 'deletionVector.sizeInBytes must be a non-negative int');
  f.must(isLong(dv.cardinality) && dv.cardinality >= 0, where, 'deletionVector.cardinality must be a non-negative long');
  if (dv.storageType === 'i') {
    f.must(dv.offset == null, where, 'an inline deletion vector has no offset');
    f.must(Z85.test(dv.pathOrInlineDv) && dv.pathOrInlineDv.length % 5 === 0, where, 'an inline deletion vector must be Z85 text');
  } else {
    f.must(isLong(dv.offset) && dv.offset >= 1, where, 'a stored deletion vector needs an offset of 1 or more');
  }
  if (dv.storageType === 'u')
    f.must(dv.pathOrInlineDv.length >= 20 && Z85.test(dv.pathOrInlineDv.slice(-20)), where,
      'a relative deletion vector ends with its file\'s UUID as 20 Z85 characters');
}

// The file name of a relative ('u') deletion vector: <prefix>/deletion_vector_<uuid>.bin, the UUID
// Z85-decoded from the last 20 characters.
function deletionVectorFile(dv) {
  const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
  const text = dv.pathOrInlineDv;
  const bytes = [];
  for (let i = text.length - 20; i < text.length; i += 5) {
    let value = 0;
    for (let j = 0; j < 5; j++) value = value * 85 + alphabet.indexOf(text[i + j]);
    bytes.push((value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255);
  }
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  const prefix = text.slice(0, -20);
  return `${prefix ? `${prefix}/` : ''}deletion_vector_${uuid}.bin`;
}

function checkAdd(add, meta, protocol, where, f) {
  const decoded = checkPath(add.path, where, f);
  f.must(isObject(add.partitionValues), where, 'add.partitionValues must be a map');
  const keys = Object.keys(add.partitionValues || {}).sort();
  const storedPartitions = meta.raw.partitionColumns.map((c) => (meta.fields.find((x) => x.name === c) || { stored: c }).stored);
  f.must(JSON.stringify(keys) === JSON.stringify([...storedPartitions].sort()), where,
    `add.partitionValues has ${keys} but the partition columns are ${storedPartitions}`);
  for (const c of meta.raw.partitionColumns) {
    const field = meta.fields.find((x) => x.name === c);
    if (field) checkPartitionValue((add.partitionValues || {})[field.stored] ?? null, field.type, `${where} partition ${c}`, f);
  }
  f.must(isLong(add.size) && add.size >= 0, where, 'add.size must be a long');
  f.must(isLong(add.modificationTime), where, 'add.modificationTime must be a long');
  f.must(typeof add.dataChange === 'boolean', where, 'add.dataChange must be a boolean');
  f.must(add.tags == null || isObject(add.tags), where, 'add.tags must be a map');
  const numRecords = checkStats(add.stats, meta, where, f);
  if (add.deletionVector != null) {
    checkDeletionVector(add.deletionVector, protocol, where, f);
    f.must(numRecords != null, where, 'a file with a deletion vector must state numRecords in its stats');
  }
  return { path: decoded, key: fileKey(decoded, add.deletionVector), numRecords, add };
}

function checkRemove(remove, protocol, where, f) {
  const decoded = checkPath(remove.path, where, f);
  if (remove.deletionVector != null) checkDeletionVector(remove.deletionVector, protocol, where, f);
  f.must(typeof remove.dataChange === 'boolean', where, 'remove.dataChange must be a boolean');
  f.must(remove.deletionTimestamp == null || isLong(remove.deletionTimestamp), where, 'remove.deletionTimestamp must be a long');
  return decoded;
}

function checkTxn(txn, where, f) {
  f.must(typeof txn.appId === 'string', where, 'txn.appId must be a string');
  f.must(isLong(txn.version), where, 'txn.version must be a long');
  f.must(txn.lastUpdated == null || isLong(txn.lastUpdated), where, 'txn.lastUpdated must be a long');
}

// ---- replay -------------------------------------------------------------------------------

class TableState {
  constructor() {
    this.protocol = null; this.meta = null; this.files = new Map(); this.txns = new Map();
    this.domains = new Map();  // domain -> configuration, the domainMetadata actions in force
    this.lastCommitTimestamp = null;  // the previous commit's inCommitTimestamp
  }

  // Applies one version's actions (a commit, or a checkpoint's rows), checking them on the way.
  apply(actions, where, f, { isCheckpoint = false } = {}) {
    const counts = {};
    const paths = new Set();  // the files (path and vector) acted on in this version
    // At most one add and one remove of a path per version, whatever the vectors.
    const addedPaths = new Set();
    const removedPaths = new Set();
    const removedFiles = new Map();  // path -> the live file a remove of this version took out
    for (const { kind, body, at } of actions) {
      counts[kind] = (counts[kind] || 0) + 1;
      if (kind === 'protocol') { checkProtocol(body, at, f); this.protocol = body; }
      if (kind === 'metaData') { this.meta = { raw: body, ...checkMetadata(body, at, f) }; }
    }
    f.must((counts.protocol || 0) <= 1 && (counts.metaData || 0) <= 1, where, 'more than one protocol or metaData');
    if (!isCheckpoint) f.must((counts.commitInfo || 0) <= 1, where, 'more than one commitInfo');
    if (!f.must(this.protocol && this.meta, where, 'no protocol and metaData up to here')) return;
    // PROTOCOL.md, "In-Commit Timestamps": with the feature and delta.enableInCommitTimestamps,
    // commitInfo comes first with an inCommitTimestamp later than the previous commit's.
    const ict = ((this.protocol.writerFeatures) || []).includes('inCommitTimestamp') &&
      String((this.meta.raw.configuration || {})['delta.enableInCommitTimestamps']).toLowerCase() === 'true';
    if (ict && !isCheckpoint && f.must(actions.length > 0 && actions[0].kind === 'commitInfo', where,
      'in-commit timestamps are on: commitInfo must be the first action')) {
      const t = actions[0].body.inCommitTimestamp;
      if (f.must(isLong(t), where, 'in-commit timestamps are on: commitInfo needs a long inCommitTimestamp')) {
        if (this.lastCommitTimestamp !== null)
          f.must(Number(t) > this.lastCommitTimestamp, where,
            `inCommitTimestamp ${t} is not later than the previous commit's ${this.lastCommitTimestamp}`);
        this.lastCommitTimestamp = Number(t);
      }
    }
    checkFeatureRules(this.protocol, this.meta, where, f);
    const txnApps = new Set();
    for (const { kind, body, at } of actions) {
      if (kind === 'txn') {
        checkTxn(body, at, f);
        f.must(!txnApps.has(body.appId), at, `two txn actions for appId ${body.appId}`);
        txnApps.add(body.appId);
        this.txns.set(body.appId, body);
      } else if (kind === 'remove') {
        const p = checkRemove(body, this.protocol, at, f);
        const key = fileKey(p, body.deletionVector);
        // (A checkpoint keeps a tombstone per removed file: one path may have several vectors.)
        f.must(isCheckpoint || !removedPaths.has(p), at, `path ${p} is removed more than once in this version`);
        removedPaths.add(p);
        paths.add(key);
        if (!isCheckpoint) {
          // A remove names the file with its deletion vector: without it, the file that has one stays.
          f.must(this.files.has(key) || ![...this.files.values()].some((x) => x.path === p && !paths.has(x.key)), at,
            `remove of ${p} leaves out the deletion vector of the live file it removes`);
          if (this.files.has(key)) removedFiles.set(p, this.files.get(key));
          this.files.delete(key);
        }
      } else if (kind === 'add') {
        // PROTOCOL.md, "Row Tracking": with the feature, every add has its base row id and version,
        // and a file added again (a new deletion vector) keeps those of the file it was.
        if (((this.protocol.writerFeatures) || []).includes('rowTracking') && !isCheckpoint) {
          f.must(isLong(body.baseRowId) && isLong(body.defaultRowCommitVersion), at,
            'row tracking is supported: add needs baseRowId and defaultRowCommitVersion');
          const p = decodeURIComponent(body.path);
          const before = removedFiles.get(p) || [...this.files.values()].find((x) => x.path === p);
          if (before && before.add.baseRowId != null)
            f.must(String(before.add.baseRowId) === String(body.baseRowId) &&
              String(before.add.defaultRowCommitVersion) === String(body.defaultRowCommitVersion), at,
              `file ${body.path} added again with other row ids than it had`);
        }
        const file = checkAdd(body, this.meta, this.protocol, at, f);
        f.must(!addedPaths.has(file.path), at, `path ${file.path} is added more than once in this version`);  // one live file per path
        addedPaths.add(file.path);
        f.must(!paths.has(file.key), at, `file ${file.path} is removed and added with the same vector in this version`);
        paths.add(file.key);
        // Tables read as Iceberg keep the partition columns in their files too (Delta's
        // IcebergCompat features ask for that; lakestream.iceberg does it).
        const conf = this.meta.raw.configuration || {};
        const materialized = ['lakestream.iceberg', 'delta.enableIcebergCompatV1', 'delta.enableIcebergCompatV2'].some((k) => conf[k] === 'true');
        this.files.set(file.key, { ...file, schema: this.meta.fields, partitionColumns: this.meta.raw.partitionColumns, materialized });
      } else if (kind === 'cdc') {
        // PROTOCOL.md, "Add CDC File" and "Change Data Files": a file of the feed in the table
        // folder, dataChange false, only in commits, only with the feature (writer 4, or 7 listing it).
        const writer = this.protocol.minWriterVersion;
        f.must(!isCheckpoint, at, 'a checkpoint holds no cdc action');
        f.must(writer >= 4 && (writer < 7 || (this.protocol.writerFeatures || []).includes('changeDataFeed')), at,
          'cdc action without the changeDataFeed feature');
        if (f.must(typeof body.path === 'string' && isObject(body.partitionValues) && isLong(body.size) && body.dataChange === false,
          at, 'cdc needs path, partitionValues, size and dataChange = false')) {
          const file = path.join(f.table, decodeURIComponent(body.path));
          if (f.must(fs.existsSync(file), at, `change data file ${body.path} is not on disk`))
            f.must(fs.statSync(file).size === Number(body.size), at, `change data file ${body.path} is not ${body.size} bytes`);
        }
      } else if (kind === 'domainMetadata') {
        // PROTOCOL.md, "Domain Metadata": the writer feature, a domain and its configuration string.
        f.must(((this.protocol && this.protocol.writerFeatures) || []).includes('domainMetadata'), at,
          'domainMetadata action without the domainMetadata writer feature');
        f.must(typeof body.domain === 'string' && typeof body.configuration === 'string' && typeof body.removed === 'boolean',
          at, 'domainMetadata needs domain, configuration (strings) and removed (boolean)');
        if (body.removed) this.domains.delete(body.domain); else this.domains.set(body.domain, body.configuration);
      } else if (kind === 'commitInfo') {
        f.must(isObject(body), at, 'commitInfo must be an object');
        // (the change data feed's rule is checked below, over the whole commit)
        // Spark reads operationParameters as map<string,string>; lakestream promises that form.
        if (isObject(body.operationParameters) && String(body.engineInfo).startsWith('lakestream'))
          f.must(Object.values(body.operationParameters).every((v) => typeof v === 'string'), at,
            'commitInfo.operationParameters values must be strings');
      }
    }
    // With the change data feed on, lakestream's commits that take rows out say which in cdc
    // files: without them a reader of the feed takes the removed files' rows as deleted and the
    // added ones' as inserted, wrong for a rewrite (another engine's whole-file delete may omit them).
    const feedOn = String((this.meta.raw.configuration || {})['delta.enableChangeDataFeed']).toLowerCase() === 'true';
    const ours = actions.some((a) => a.kind === 'commitInfo' && String(a.body.engineInfo).startsWith('lakestream'));
    if (feedOn && ours && !isCheckpoint)
      f.must(!actions.some((a) => a.kind === 'remove' && a.body.dataChange !== false) || actions.some((a) => a.kind === 'cdc'), where,
        'the change data feed is on and this commit of lakestream removes rows without cdc files');
  }
}

function actionsOfCommit(text, where, f) {
  const actions = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const at = `${where}:${i + 1}`;
    let object;
    try { object = JSON.parse(line); } catch (e) { f.must(false, at, `not JSON (${e.message})`); return; }
    const kinds = Object.keys(object);
    if (!f.must(kinds.length === 1, at, `a line must hold exactly one action, not ${kinds}`)) return;
    f.must(ACTIONS.has(kinds[0]), at, `unknown action ${kinds[0]}`);
    actions.push({ kind: kinds[0], body: object[kinds[0]], at });
  });
  return actions;
}

// Spark's checkpoint columns and the fields each must have (PROTOCOL.md, "Checkpoint Schema").
const CHECKPOINT_FIELDS = {
  txn: ['appId', 'version', 'lastUpdated'],
  add: ['path', 'partitionValues', 'size', 'modificationTime', 'dataChange'],
  remove: ['path', 'deletionTimestamp', 'dataChange'],
  metaData: ['id', 'name', 'description', 'format', 'schemaString', 'partitionColumns', 'configuration', 'createdTime'],
  protocol: ['minReaderVersion', 'minWriterVersion'],
};

// The actions a v2 checkpoint adds (PROTOCOL.md, "V2 Spec"), and domain metadata.
const CHECKPOINT_V2_ACTIONS = new Set(['checkpointMetadata', 'sidecar', 'domainMetadata']);

// `rows` are the checkpoint's rows as plain objects, `columns` its top-level column -> field names.
function actionsOfCheckpoint(rows, columns, where, f, required = CHECKPOINT_FIELDS) {
  for (const [column, fields] of Object.entries(required)) {
    if (!f.must(columns[column], where, `checkpoint has no ${column} column`)) continue;
    for (const field of fields) f.must(columns[column].includes(field), where, `checkpoint ${column} has no ${field}`);
  }
  const actions = [];
  rows.forEach((row, i) => {
    const present = Object.keys(row).filter((k) => row[k] != null && (k in CHECKPOINT_FIELDS || CHECKPOINT_V2_ACTIONS.has(k)));
    const at = `${where} row ${i}`;
    if (!f.must(present.length === 1, at, `a checkpoint row must hold exactly one action, not ${present}`)) return;
    const body = Object.fromEntries(Object.entries(row[present[0]]).filter(([, v]) => v != null));
    if (present[0] === 'metaData' && body.format) body.format.options = body.format.options || {};
    actions.push({ kind: present[0], body, at });
  });
  return actions;
}

// The rows of all parts of one checkpoint, the columns of the first, and a name for messages.
function readCheckpointParts(files, readCheckpoint) {
  const parts = files.sort().map((file) => readCheckpoint(file));
  return { rows: parts.flatMap((p) => p.rows), columns: parts[0].columns, file: files[0] };
}

// Two schemaStrings that say the same: the same JSON, whatever the order of keys and spacing.
function sameSchema(a, b) {
  const canonical = (v) => (Array.isArray(v) ? v.map(canonical)
    : isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical(v[k])])) : v);
  try { return JSON.stringify(canonical(JSON.parse(a))) === JSON.stringify(canonical(JSON.parse(b))); } catch (e) { return false; }
}

// The actions of one checkpoint: a classic one (one file or its parts), or a v2 one (PROTOCOL.md,
// "V2 Spec"): a top-level Parquet or JSON file with exactly one checkpointMetadata, and the add and
// remove actions of the sidecar files it names, which lie in _delta_log/_sidecars. A classic-named
// checkpoint follows the v2 spec when it has a checkpointMetadata action ("Classic checkpoint":
// it may then name sidecars too).
function checkpointActions(entry, log, readCheckpoint, f) {
  let actions;
  let file;
  if (!entry.v2) {
    const parts = readCheckpointParts(entry.files, readCheckpoint);
    file = parts.file;
    actions = actionsOfCheckpoint(parts.rows, parts.columns, file, f);
    if (!actions.some((a) => a.kind === 'checkpointMetadata')) {
      f.must(!actions.some((a) => a.kind === 'sidecar'), file, 'a v1 spec checkpoint names no sidecars');
      return { actions, file };
    }
    f.must(entry.files.length === 1, file, 'a v2 spec checkpoint is never a multi-part one');
  } else {
    file = entry.files[0];
    if (file.endsWith('.json')) {
      actions = actionsOfCommit(fs.readFileSync(file, 'utf8'), file, f);
    } else {
      const { rows, columns } = readCheckpoint(file);
      actions = actionsOfCheckpoint(rows, columns, file, f);
    }
  }
  f.must(actions.filter((a) => a.kind === 'checkpointMetadata').length === 1, file,
    'a v2 checkpoint holds exactly one checkpointMetadata action');
  f.must(!actions.some((a) => a.kind === 'sidecar') || !actions.some((a) => a.kind === 'add' || a.kind === 'remove'), file,
    'a v2 checkpoint holds its add and remove actions all in itself or all in sidecars, never some of each');
  for (const { body, at } of actions.filter((a) => a.kind === 'sidecar')) {
    if (!f.must(typeof body.path === 'string' && isLong(body.sizeInBytes), at, 'sidecar needs path and sizeInBytes')) continue;
    const sidecar = path.join(log, '_sidecars', decodeURIComponent(body.path));
    if (!f.must(!body.path.includes('/') && fs.existsSync(sidecar), at, `sidecar ${body.path} is not in _delta_log/_sidecars`))
      continue;
    f.must(fs.statSync(sidecar).size === Number(body.sizeInBytes), at, `sidecar ${body.path} is not sizeInBytes long`);
    const { rows, columns } = readCheckpoint(sidecar);
    const inSidecar = actionsOfCheckpoint(rows, columns, sidecar, f, { add: CHECKPOINT_FIELDS.add, remove: CHECKPOINT_FIELDS.remove });
    for (const a of inSidecar)
      f.must(a.kind === 'add' || a.kind === 'remove', a.at, `a sidecar holds only add and remove actions, not ${a.kind}`);
    actions = actions.concat(inSidecar);
  }
  return { actions, file };
}

// Validates the whole log of `tablePath`. readCheckpoint(file) returns {rows, columns}. Returns
// {errors, versions, state, everyAdd}: state is the newest version's replay; everyAdd every add
// action seen in any commit or checkpoint, with the schema in force when it was added.
function validateTable(tablePath, readCheckpoint) {
  const f = new Findings(tablePath);
  const log = path.join(tablePath, '_delta_log');
  const names = fs.readdirSync(log);
  const commits = names.filter((n) => /^\d{20}\.json$/.test(n)).map((n) => Number(n.slice(0, 20))).sort((a, b) => a - b);
  // A classic checkpoint is one file, or parts NNN.checkpoint.<part>.<parts>.parquet, all of them there.
  const checkpointFiles = new Map();
  const V2_NAME = /^(\d{20})\.checkpoint\.[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\.(parquet|json)$/;
  for (const n of names) {
    const m = /^(\d{20})\.checkpoint(?:\.(\d{10})\.(\d{10}))?\.parquet$/.exec(n);
    if (!m) continue;
    const v = Number(m[1]);
    if (!checkpointFiles.has(v)) checkpointFiles.set(v, { parts: m[3] ? Number(m[3]) : 1, files: [] });
    checkpointFiles.get(v).files.push(path.join(log, n));
  }
  // A v2 checkpoint, named by a UUID, where the version has no classic one.
  for (const n of names) {
    const m = V2_NAME.exec(n);
    if (m && !checkpointFiles.has(Number(m[1]))) checkpointFiles.set(Number(m[1]), { parts: 1, files: [path.join(log, n)], v2: true });
  }
  for (const [v, { parts, files }] of checkpointFiles)
    f.must(files.length === parts, log, `checkpoint ${v} has ${files.length} of its ${parts} parts`);
  const checkpoints = [...checkpointFiles.keys()];
  for (const n of names)
    f.must(/^\d{20}\.(json|checkpoint(\.\d{10}\.\d{10})?\.parquet|crc)$/.test(n) || V2_NAME.test(n) ||
      n === '_last_checkpoint' || n === '_sidecars' || n.startsWith('.') || n.endsWith('.tmp'), log, `unexpected file ${n} in the log`);
  if (!f.must(commits.length > 0 || checkpoints.length > 0, log, 'no commits')) return { errors: f.errors };
  const latest = Math.max(...commits, ...checkpoints);
  for (let v = commits[0]; v <= latest; v++)
    f.must(commits.includes(v) || v <= Math.max(-1, ...checkpoints), log, `commit ${v} is missing`);

  const everyAdd = [];
  const checkpointRows = new Map();
  for (const v of checkpoints.sort((a, b) => a - b)) {
    const { actions, file } = checkpointActions(checkpointFiles.get(v), log, readCheckpoint, f);
    checkpointRows.set(v, actions.length);
    const state = new TableState();
    state.apply(actions, file, f, { isCheckpoint: true });
    for (const file of state.files.values()) everyAdd.push(file);
    // The checkpoint holds the same table as the commits up to it, where those are still there.
    if (commits[0] === 0 && commits.includes(v)) {
      const replay = new TableState();
      for (let c = 0; c <= v; c++) {
        const commit = path.join(log, `${String(c).padStart(20, '0')}.json`);
        replay.apply(actionsOfCommit(fs.readFileSync(commit, 'utf8'), commit, new Findings(tablePath)), commit, new Findings(tablePath));
      }
      f.must(JSON.stringify([...state.files.keys()].sort()) === JSON.stringify([...replay.files.keys()].sort()), file,
        'the checkpoint\'s adds differ from the replay of the commits up to it');
      f.must(state.meta && sameSchema(state.meta.raw.schemaString, replay.meta.raw.schemaString) &&
        state.meta.raw.name === replay.meta.raw.name && state.meta.raw.description === replay.meta.raw.description &&
        JSON.stringify(state.meta.raw.configuration) === JSON.stringify(replay.meta.raw.configuration), file,
        'the checkpoint\'s metaData differs from the commits\'');
      f.must(JSON.stringify(state.protocol) === JSON.stringify(replay.protocol), file, 'the checkpoint\'s protocol differs');
      f.must(JSON.stringify([...state.domains].sort()) === JSON.stringify([...replay.domains].sort()), file,
        'the checkpoint\'s domainMetadata differs from the commits\'');
      for (const [app, txn] of replay.txns)
        f.must(state.txns.has(app) && String(state.txns.get(app).version) === String(txn.version) &&
          String(state.txns.get(app).lastUpdated) === String(txn.lastUpdated), file, `txn ${app} differs from the commits'`);
    }
  }
  const hint = path.join(log, '_last_checkpoint');
  if (fs.existsSync(hint)) {
    const last = JSON.parse(fs.readFileSync(hint, 'utf8'));
    f.must(isLong(last.version) && checkpointRows.has(last.version), hint, `names checkpoint ${last.version}, not in the log`);
    if (last.size != null) f.must(checkpointRows.get(last.version) === last.size, hint, 'size is not the checkpoint\'s row count');
  }

  // The newest state: every commit from 0, or, when the oldest commits are cleaned up, from the
  // checkpoint the log now starts at (re-applying a commit it already holds changes nothing).
  const state = new TableState();
  if (commits[0] > 0) {
    const base = Math.max(...checkpoints.filter((c) => c <= commits[0]));
    if (!f.must(Number.isFinite(base), log, `the log starts at ${commits[0]} without a checkpoint at or below it`))
      return { errors: f.errors };
    const { actions, file } = checkpointActions(checkpointFiles.get(base), log, readCheckpoint, new Findings(tablePath));
    state.apply(actions, file, f, { isCheckpoint: true });
  }
  for (let v = commits[0]; v <= latest; v++) {
    const commit = path.join(log, `${String(v).padStart(20, '0')}.json`);
    if (!fs.existsSync(commit)) continue;
    const actions = actionsOfCommit(fs.readFileSync(commit, 'utf8'), commit, f);
    if (v === 0) f.must(actions.some((a) => a.kind === 'protocol') && actions.some((a) => a.kind === 'metaData'),
      commit, 'version 0 must hold protocol and metaData');
    state.apply(actions, commit, f);
    for (const a of actions)
      if (a.kind === 'add') everyAdd.push(state.files.get(fileKey(decodeURIComponent(a.body.path), a.body.deletionVector)));
  }
  // Row tracking: the live files' row id ranges do not overlap, and the high-water mark covers them.
  if (state.protocol && (state.protocol.writerFeatures || []).includes('rowTracking')) {
    const ranges = [...state.files.values()].filter((x) => x.add.baseRowId != null).map((x) => {
      const stats = typeof x.add.stats === 'string' ? JSON.parse(x.add.stats) : {};
      return [Number(x.add.baseRowId), Number(x.add.baseRowId) + Math.max(1, Number(stats.numRecords || 1)) - 1, x.path];
    }).sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < ranges.length; i++)
      f.must(ranges[i][0] > ranges[i - 1][1], tablePath, `row ids of ${ranges[i][2]} overlap those of ${ranges[i - 1][2]}`);
    const mark = state.domains.has('delta.rowTracking') ? JSON.parse(state.domains.get('delta.rowTracking')).rowIdHighWaterMark : -1;
    if (ranges.length > 0)
      f.must(Number(mark) >= ranges[ranges.length - 1][1], tablePath,
        `the row id high-water mark ${mark} is below the ids given (${ranges[ranges.length - 1][1]})`);
  }
  for (const file of state.files.values()) {
    f.must(fs.existsSync(path.join(tablePath, file.path)), tablePath, `live file ${file.path} is not on disk`);
    const dv = file.add.deletionVector;
    if (dv != null && dv.storageType === 'u')
      f.must(fs.existsSync(path.join(tablePath, deletionVectorFile(dv))), tablePath,
        `the deletion vector ${deletionVectorFile(dv)} of live file ${file.path} is not on disk`);
  }
  return { errors: f.errors, versions: latest + 1, state, everyAdd };
}

module.exports = { validateTable };
