import 'reflect-metadata';
import { IsInt, IsOptional, IsString, MaxLength, validate, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { createValidationPipe } from './validation';
import { memoizeValidationMetadata } from './validation-metadata';

class Base {
  @IsString()
  id!: string;
}

class Inner {
  @IsInt()
  n!: number;
}

class Outer extends Base {
  @IsString()
  @MaxLength(5)
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  inner?: Inner;
}

const fields = async (o: object) =>
  (await validate(o, { whitelist: true, forbidNonWhitelisted: true })).map((e) => e.property);

describe('memoizeValidationMetadata', () => {
  it('validates as before: rules of the class, of the class it extends and of nested classes', async () => {
    const before = await fields(Object.assign(new Outer(), { id: 1, name: 'too long', extra: true }));
    memoizeValidationMetadata();
    memoizeValidationMetadata(); // a second pipe does not wrap it again
    for (let i = 0; i < 3; i++) {
      expect(await fields(Object.assign(new Outer(), { id: 1, name: 'too long', extra: true }))).toEqual(before);
    }
    expect(before.sort()).toEqual(['extra', 'id', 'name']);
    expect(await fields(Object.assign(new Outer(), { id: 'a', name: 'ok' }))).toEqual([]);
  });

  it('works out the rules of a class once, not on every validation', async () => {
    memoizeValidationMetadata();
    const storage = (await import('class-validator')).getMetadataStorage();
    const a = storage.getTargetValidationMetadatas(Outer, '', false, false);
    const b = storage.getTargetValidationMetadatas(Outer, '', false, false);
    expect(b).toBe(a);
    expect(new Set(a.map((m) => m.propertyName))).toEqual(new Set(['id', 'inner', 'name']));
    expect(storage.groupByPropertyName(a)).toBe(storage.groupByPropertyName(b));
    // A different question is answered on its own.
    expect(storage.getTargetValidationMetadatas(Outer, '', false, false, ['g'])).not.toBe(a);
  });

  it('takes in the rules of a class whose decorators run after the first validation', async () => {
    memoizeValidationMetadata();
    class Late {
      @IsString()
      a!: string;
    }
    expect(await fields(Object.assign(new Late(), { a: 1 }))).toEqual(['a']);
    // A rule added to a class already validated is seen at its next validation.
    IsInt()(Late.prototype, 'b');
    const errors = await validate(Object.assign(new Late(), { a: 'x', b: 'y' }), { whitelist: true });
    expect(errors.map((e) => [e.property, Object.keys(e.constraints ?? {})])).toEqual([['b', ['isInt']]]);
  });

  it("is what the services' validation pipe uses", async () => {
    const pipe = createValidationPipe();
    const storage = (await import('class-validator')).getMetadataStorage();
    const rules = storage.getTargetValidationMetadatas(Outer, '', false, false);
    expect(storage.getTargetValidationMetadatas(Outer, '', false, false)).toBe(rules);
    await expect(
      pipe.transform({ id: 'a', name: 'ok', inner: { n: 'x' } }, { type: 'body', metatype: Outer }),
    ).rejects.toMatchObject({ status: 400, extensions: { errors: [{ field: 'inner.n' }] } });
    await expect(
      pipe.transform({ id: 'a', name: 'ok', inner: { n: 1 } }, { type: 'body', metatype: Outer }),
    ).resolves.toBeInstanceOf(Outer);
  });
});
