/* global describe, it */

import { expect, should } from 'chai'
import * as fs from 'node:fs'
import parser from '../build/lib/index.js'

should()

describe('yargs-parser', function () {
  describe('configuration', function () {
    it('should not parse known short option groups', function () {
      const argv = parser('-known', {
        boolean: ['k', 'n'],
        configuration: { 'short-option-groups': false }
      })
      argv.should.deep.equal({
        _: ['-known']
      })
    })
  })
})
