import { ValueTransformer } from 'typeorm';

/** numeric columns arrive from pg as strings; amounts are exposed as numbers. */
export const decimal: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};
