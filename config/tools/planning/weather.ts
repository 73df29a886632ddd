/** In-memory weather and comparison tools for the DAG example (seed 003's guide). */
const WEATHER: Record<string, { temp: number; condition: string }> = {
  Tokyo: { temp: 25, condition: 'sunny' },
  London: { temp: 12, condition: 'rain' },
  Paris: { temp: 18, condition: 'cloudy' },
};

export async function getWeather(input: { location: string }): Promise<{ city: string; temp: number; condition: string }> {
  const reading = WEATHER[input.location];
  if (!reading) throw Object.assign(new Error(`no weather for '${input.location}'`), { code: 'UNKNOWN_CITY' });
  return { city: input.location, ...reading };
}

export function compareData(input: { data_a: { city: string; temp: number }; data_b: { city: string; temp: number } }): { warmer: string; difference: number } {
  const warmer = input.data_a.temp >= input.data_b.temp ? input.data_a : input.data_b;
  return { warmer: warmer.city, difference: Math.abs(input.data_a.temp - input.data_b.temp) };
}
