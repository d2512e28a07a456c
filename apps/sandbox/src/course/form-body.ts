/** An event as a form body, nested objects as bracketed keys: `{user: {phone: "1"}}` is `user[phone]=1`. */
export function courseFormBody(event: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const walk = (value: unknown, key: string) => {
    if (Array.isArray(value)) value.forEach((v) => walk(v, `${key}[]`));
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, `${key}[${k}]`);
    } else if (value !== undefined && value !== null) params.append(key, String(value));
  };
  for (const [k, v] of Object.entries(event)) walk(v, k);
  return params.toString();
}
