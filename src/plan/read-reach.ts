/**
 * The collections a read plan reads from: its own, those its outputs expand, and those its filters, sorts,
 * aggregates and access rules reach through relations. A cached answer is tagged with them, so that a write to any
 * of them drops it (docs/design/response-cache.md). Taken from the plan, where every reach is explicit.
 */
import type { Join, Operand, PlannedFilter, PlannedOutput, ReadLevel, ReadPlan } from './read-plan.js';

export function readReach(plan: ReadPlan): string[] {
  const reached = new Set<string>();
  level(plan, reached);
  for (const group of plan.aggregate?.groups ?? []) operand(group.operand, reached);
  for (const aggregate of plan.aggregate?.aggregates ?? []) if (aggregate.operand) operand(aggregate.operand, reached);
  return [...reached];
}

function level(read: ReadLevel, reached: Set<string>): void {
  reached.add(read.collection.collection);
  for (const output of read.outputs) planned(output, reached);
  filter(read.accessFilter, reached);
  filter(read.filter, reached);
  for (const sort of read.sort) operand(sort.operand, reached);
}

function join(link: Join, reached: Set<string>): void {
  reached.add(link.collection.collection);
}

function planned(output: PlannedOutput, reached: Set<string>): void {
  filter(output.guard, reached);
  switch (output.kind) {
    case 'value':
      return operand(output.operand, reached);
    case 'object':
      return (join(output.join, reached), level(output.level, reached));
    case 'list':
      join(output.join, reached);
      level(output.level, reached);
      if (output.scalar) operand(output.scalar.operand, reached);
      return;
    case 'any':
      for (const branch of output.branches) (join(branch.join, reached), level(branch.level, reached));
      return;
  }
}

function operand(value: Operand, reached: Set<string>): void {
  switch (value.kind) {
    case 'count-related':
      return (join(value.join, reached), filter(value.filter, reached));
    case 'related':
      join(value.join, reached);
      filter(value.filter, reached);
      return operand(value.operand, reached);
    case 'guarded':
      return (filter(value.guard, reached), operand(value.operand, reached));
    default:
      return;
  }
}

function filter(value: PlannedFilter | null, reached: Set<string>): void {
  if (!value) return;
  switch (value.kind) {
    case 'and':
    case 'or':
      for (const child of value.children) filter(child, reached);
      return;
    case 'not':
      return filter(value.child, reached);
    case 'compare':
      return operand(value.operand, reached);
    case 'exists':
      return (join(value.join, reached), filter(value.filter, reached));
    default:
      return;
  }
}
