# frozen_string_literal: true

require 'json'
require 'open3'
require 'tempfile'

# A Hiera 5 `lookup_key` function that answers from a model compiled by pbc (the Puppet
# bindings compiler): bindings written in pbc's syntax reach `lookup()` and automatic class
# parameters with no change to Puppet.
#
# On the first key a catalog compile asks, it runs pbc once for the node (`pbc lookup --model
# MODEL --all --format answers`, the node's facts and trusted data in a private temporary file)
# and keeps the whole answer in the lookup context's cache; each key then returns its value or
# calls `not_found`. Values come as pbc resolved them (Puppet's rich data: Integer, Float,
# Sensitive and hash order kept), never interpolated again. A key whose answer failed in pbc is
# a lookup error naming pbc's diagnostic; a model that cannot be read, a pbc that cannot be run
# or does not answer in time is an error too, never a partial answer.
Puppet::Functions.create_function(:'pbc::lookup_key') do
  dispatch :lookup_key do
    param 'Variant[String, Numeric]', :key
    param 'Hash', :options
    param 'Puppet::LookupContext', :context
  end

  # What pbc writes (`pbc lookup --format answers`, docs/answers.md), and where a compile
  # keeps it.
  def answers_format
    'pbc-answers'
  end

  def answers_version
    1
  end

  def cache_key
    '__pbc_answers__'
  end

  def lookup_key(key, options, context)
    key = key.to_s
    answers = answers_for_node(options, context)
    answer = answers['keys'][key]
    if answer.nil?
      context.explain { "pbc: no binding of '#{key}' applies to this node" }
      return context.not_found
    end
    if answer['error']
      error = answer['error']
      place = error['at'] ? " at #{error['at']}" : ''
      notes = error['notes'].empty? ? '' : " (#{error['notes'].join('; ')})"
      raise Puppet::DataBinding::LookupError,
            "pbc cannot answer '#{key}': #{error['code']}#{place}: #{error['message']}#{notes}"
    end
    unless answer['found']
      context.explain { "pbc: nothing is bound to '#{key}' for this node" }
      return context.not_found
    end
    context.explain do
      conditions = (answer['when'] || []).map { |w| "#{w['category']} '#{w['value']}'" }
      matched = conditions.empty? ? 'always' : "when #{conditions.join(' and ')}"
      "pbc: '#{key}' from the binding at #{answer['origin']} in layer '#{answer['layer']}' (#{matched}), model #{options['model']}"
    end
    Puppet::Pops::Serialization::FromDataConverter.convert(answer['value'])
  end

  # The node's whole answer: from the cache after the first key of a compile.
  def answers_for_node(options, context)
    return context.cached_value(cache_key) if context.cache_has_key(cache_key)
    answers = run_pbc(options, context)
    context.cache(cache_key, answers)
    answers
  end

  def run_pbc(options, context)
    model = model_path(options)
    unless File.file?(model)
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: the model '#{model}' does not exist or is not a file"
    end
    pbc = options['pbc'] || 'pbc'
    timeout = (options['timeout'] || 10).to_f
    scope = closure_scope
    facts = scope['facts'] || {}
    trusted = scope['trusted']
    # Without `trusted` (a compile always has it), pbc makes it from the facts as Puppet does.
    node_facts = trusted.nil? ? facts : facts.merge('trusted' => trusted)
    Tempfile.create(['pbc-facts', '.json']) do |file|
      # Tempfile creates the file exclusively, readable only by its owner (0600).
      file.write(JSON.generate(Puppet::Pops::Serialization::ToDataConverter.convert(node_facts, rich_data: false, symbol_as_string: true)))
      file.flush
      argv = [pbc, 'lookup', '--model', model, '--facts', file.path, '--env', context.environment_name.to_s,
              '--all', '--format', 'answers', '--color', 'never', '--quiet']
      stdout, stderr, status = run(argv, timeout)
      read_answers(stdout, stderr, status, model)
    end
  end

  # The model: `options.model`, relative to the environment's directory. Not a `path`, which
  # Hiera drops without a word when its file is missing: a deploy without its model would
  # silently lose every binding.
  def model_path(options)
    if options.key?('path')
      raise Puppet::DataBinding::LookupError,
            'pbc::lookup_key: give the model as `options: { model: PATH }`, not `path`: Hiera skips a `path` that does not exist without a word, and every binding would silently be lost'
    end
    model = options['model']
    raise Puppet::DataBinding::LookupError, 'pbc::lookup_key needs `options: { model: PATH }`: the model `pbc compile --cache` wrote' unless model.is_a?(String)
    return model if model.start_with?('/')
    environment = Puppet.lookup(:current_environment)
    File.join(environment.configuration.path_to_env, model)
  end

  # Runs pbc without a shell, within `timeout` seconds: its output, its errors, its status.
  def run(argv, timeout)
    Open3.popen3(*argv) do |stdin, stdout, stderr, wait|
      stdin.close
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      unless wait.join(timeout)
        begin
          Process.kill('KILL', wait.pid)
        rescue Errno::ESRCH
          nil
        end
        wait.join
        raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc did not answer within #{timeout} seconds (#{argv.first})"
      end
      [out.value, err.value, wait.value]
    end
  rescue SystemCallError => e
    raise Puppet::DataBinding::LookupError, "pbc::lookup_key: cannot run pbc (#{argv.first}): #{e.message}"
  end

  def read_answers(stdout, stderr, status, model)
    answers = begin
      JSON.parse(stdout)
    rescue JSON::ParserError
      nil
    end
    unless answers.is_a?(Hash) && answers['format'] == answers_format
      why = stderr.strip.empty? ? "exit status #{status.exitstatus}" : stderr.strip
      raise Puppet::DataBinding::LookupError, "pbc::lookup_key: pbc could not answer from '#{model}': #{why}"
    end
    unless answers['version'] == answers_version
      raise Puppet::DataBinding::LookupError,
            "pbc::lookup_key: pbc #{answers['pbc']} writes answers version #{answers['version']}; this module reads version #{answers_version}"
    end
    answers
  end
end
