/** The operations that need nothing but the data chain: condition, log, transform, sleep. */
import { evaluate } from '../../plan/validation.js';
import { asRecord, parseJson } from '../safe-objects.js';
import { OperationError, type OperationHandler } from './operation-context.js';

/** Directus's condition: the filter rules against the data chain; a failure takes the reject path with its errors. */
export const condition: OperationHandler = async (options, { data }) => {
  const filter = asRecord(options.filter);
  const failures = evaluate(filter, data);
  if (failures.length === 0) return null;
  const errors = failures.map((f) => ({
    message: `Validation failed for field "${f.field}". ${f.detail}`,
    extensions: { code: 'FAILED_VALIDATION', field: f.field, type: f.type, ...f.extra },
  }));
  throw new OperationError('The condition did not hold', errors);
};

export const log: OperationHandler = async (options, { services }) => {
  const message = options.message;
  services.log.info(typeof message === 'string' ? message : JSON.stringify(message ?? null));
  return null;
};

/** The JSON option, templates already filled (a string of JSON is parsed, as Directus's code editor stores it). */
export const transform: OperationHandler = async (options) => {
  const value = options.json;
  if (typeof value !== 'string') return value ?? null;
  try {
    return parseJson(value);
  } catch {
    return value;
  }
};

export const sleep: OperationHandler = async (options, { signal }) => {
  const ms = Math.max(0, Number(options.milliseconds) || 0);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('The run was stopped'))), {
      once: true,
    });
  });
  return null;
};

/** Runs another flow (trigger `operation`) with the payload, or once per item of an array payload. */
export const trigger: OperationHandler = async (options, { services, accountability }) => {
  const flow = String(options.flow ?? '');
  const payload = options.payload;
  if (!Array.isArray(payload)) return services.runFlow(flow, payload ?? null, accountability);
  if (options.iterationMode === 'parallel')
    return Promise.all(payload.map((item) => services.runFlow(flow, item, accountability)));
  const results: unknown[] = [];
  for (const item of payload) results.push(await services.runFlow(flow, item, accountability));
  return results;
};
