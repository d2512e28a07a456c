import { Test } from '@nestjs/testing';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { PixelController, PIXEL_GIF } from './pixel.controller';
import { LocalBuckets } from '@app/database';
import { GatewayConfig } from '../config';
import { PixelOpensService } from './pixel-opens.service';

describe('PixelController', () => {
  let app: NestFastifyApplication;
  let base: string;
  const opened = jest.fn<void, [string]>();

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [PixelController],
      providers: [
        { provide: PixelOpensService, useValue: { opened } },
        { provide: GatewayConfig, useValue: new GatewayConfig() },
        { provide: LocalBuckets, useValue: new LocalBuckets(100) },
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.listen(0, '127.0.0.1');
    base = await app.getUrl();
  });

  afterAll(() => app.close());
  beforeEach(() => opened.mockReset());

  const get = async (path: string, method: 'GET' | 'HEAD' = 'GET') => {
    const res = await fetch(`${base}${path}`, { method });
    return {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers.entries()),
      rawPayload: Buffer.from(await res.arrayBuffer()),
    };
  };

  it('answers a 43-byte transparent GIF that no cache keeps', async () => {
    const token = 'A'.repeat(20) + '-_' + 'b'.repeat(38);
    const res = await get(`/v1/course/pixel/${token}.gif`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    expect(res.headers['content-length']).toBe('43');
    expect(res.rawPayload).toEqual(PIXEL_GIF);
    expect(res.rawPayload.subarray(0, 6).toString('ascii')).toBe('GIF89a');
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    expect(new Date(String(res.headers['expires'])).getTime()).toBeLessThan(Date.now());
    expect(opened).toHaveBeenCalledWith(token);
  });

  it('answers the same GIF for any token, the recording left to the service', async () => {
    for (const token of ['x', 'not-a-token', '%20', 'A'.repeat(90)]) {
      const res = await get(`/v1/course/pixel/${token}.gif`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload).toEqual(PIXEL_GIF);
    }
    expect(opened).toHaveBeenCalledTimes(4);
  });

  it('answers HEAD with the same headers', async () => {
    const res = await get(`/v1/course/pixel/${'A'.repeat(60)}.gif`, 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    expect(res.headers['cache-control']).toContain('no-store');
  });
});
